// Command s3put fills a bucket for bench/bucket.sh: N small objects under
// a prefix, in folders of 1,000, each uploaded with a stored SHA-256
// checksum, 32 at once. The AWS CLI cannot store checksums with `aws s3
// sync`, and one `s3api put-object` a process would take hours for
// 1,000,000 objects.
//
// Usage: s3put -endpoint URL -bucket NAME -prefix data/ -n 100000
// (credentials and region from the environment, as the AWS SDK reads them)
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

func main() {
	endpoint := flag.String("endpoint", "", "the store's URL")
	bucket := flag.String("bucket", "", "the bucket, created if missing")
	prefix := flag.String("prefix", "data/", "the prefix of the keys")
	n := flag.Int("n", 10000, "how many objects")
	flag.Parse()
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithBaseEndpoint(*endpoint))
	if err != nil {
		log.Fatal(err)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bucket}) // an error is an existing bucket, or shows at the first put
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i := range *n {
		g.Go(func() error {
			key := fmt.Sprintf("%s%04d/%07d.txt", *prefix, i/1000, i)
			body := bytes.Repeat([]byte(key+"\n"), 1+i%64)
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String(key), Body: bytes.NewReader(body),
				ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		log.Fatal(err)
	}
}
