package bucket_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestListEncodedKeys: keys that XML 1.0 cannot carry (U+0001, a byte
// that is not UTF-8), a CR and the characters of URL encoding itself are
// listed as they are: the listing asks for URL-encoded keys, so that one
// such key cannot make the whole listing unreadable.
func TestListEncodedKeys(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	keys := []string{"p/c\rd", "p/e f+g%2B", "p/sub\r/j"}
	for _, k := range keys {
		put(t, s, k, "x")
	}
	b := open(t, s, "s3://bkt/p/")
	var got []string
	if err := b.List(context.Background(), func(o *bucket.Object) error { got = append(got, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("listed %q, want %q", got, keys)
	}
	for _, r := range s.Requests() {
		if strings.Contains(r, "list-type=2") && !strings.Contains(r, "encoding-type=url") {
			t.Errorf("%s: a listing without encoding-type=url", r)
		}
	}
}

// TestListUnXMLKeys: a store that lists a key XML 1.0 cannot carry (as S3
// does for U+0001, or a byte that is not UTF-8) as it is makes the
// listing unreadable; asked for URL-encoded keys it lists them (the
// server here answers as S3 does).
func TestListUnXMLKeys(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	keys := []string{"p/a\x01b", "p/h\xffi"}
	s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("list-type") != "2" {
			return false
		}
		enc := r.URL.Query().Get("encoding-type") == "url"
		body := `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bkt</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><IsTruncated>false</IsTruncated>`
		if enc {
			body += `<EncodingType>url</EncodingType>`
		}
		for _, k := range keys {
			if enc {
				k = url.QueryEscape(k)
			}
			body += `<Contents><Key>` + k + `</Key><Size>1</Size><ETag>"x"</ETag></Contents>`
		}
		w.Write([]byte(body + `</ListBucketResult>`))
		return true
	})
	var got []string
	err := open(t, s, "s3://bkt/p/").List(context.Background(), func(o *bucket.Object) error { got = append(got, o.Key); return nil })
	if err != nil || !slices.Equal(got, keys) {
		t.Errorf("List: %q, %v; want %q", got, err, keys)
	}
}

// TestDeleted: an object deleted between the listing and its read is
// said to be deleted, not replaced.
func TestDeleted(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "gone", "x")
	b := open(t, s, "s3://bkt/")
	o := list(t, b)[0]
	if _, err := client(s).DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String("bkt"), Key: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open(context.Background(), &o); !errors.Is(err, bucket.ErrDeleted) {
		t.Errorf("Open: %v, want ErrDeleted", err)
	}
	if _, err := b.Stored(context.Background(), &o); !errors.Is(err, bucket.ErrDeleted) {
		t.Errorf("Stored: %v, want ErrDeleted", err)
	}
}
