// Command s3fake is a fake S3 endpoint for benchmarks only: it serves one
// bucket of N synthetic objects (keys PREFIX/dNNNN/fNNNNNNN.bin, 1,000 to a
// folder, 100 to 999 bytes of deterministic content each, every one with a
// stored full-object SHA-256 checksum and its MD5 as ETag; with -big, the
// first one of that size, as if uploaded in parts), without
// storing anything: enough of ListObjectsV2, HeadObject and GetObject for
// rsgen build s3://… at a million objects, which a real server on a
// shared 2-core machine takes hours to be filled with. It checks no
// signature. GET /_stats prints the requests it answered, by kind.
//
// Usage: s3fake -addr 127.0.0.1:9000 -bucket bench -prefix data/ -n 1000000
package main

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var (
	bucket             = flag.String("bucket", "bench", "the bucket's name")
	prefix             = flag.String("prefix", "data/", "the prefix of every key")
	n                  = flag.Int("n", 1000, "the number of objects")
	big                = flag.Int64("big", 0, "if not 0, the size of the first object, as if uploaded in parts: no stored checksum, a multipart ETag")
	modified           = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	lists, heads, gets atomic.Int64
)

// key is the key of object i: keys in the order of i.
func key(i int) string { return fmt.Sprintf("%sd%04d/f%07d.bin", *prefix, i/1000, i) }

// index returns the object of key k, or -1.
func index(k string) int {
	i := sort.Search(*n, func(i int) bool { return key(i) >= k })
	if i < *n && key(i) == k {
		return i
	}
	return -1
}

// block is the bytes of the big object, repeated.
var block = func() []byte {
	b := make([]byte, 1<<20)
	for j := range b {
		b[j] = byte(j*31 + j>>9)
	}
	return b
}()

// bigReader returns the bytes of the big object from off on.
func bigReader(off int64) io.Reader {
	r := io.MultiReader(bytes.NewReader(block[off%int64(len(block)):]), repeat{})
	return io.LimitReader(r, *big-off)
}

type repeat struct{}

func (repeat) Read(p []byte) (int, error) { return copy(p, block), nil }

// bigETag is the big object's ETag, that of an upload in parts.
const bigETag = "0123456789abcdef0123456789abcdef-2"

// content is the bytes of object i.
func content(i int) []byte {
	b := make([]byte, 100+i%900)
	for j := range b {
		b[j] = byte(i*31 + j)
	}
	return b
}

func etag(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

func sha(b []byte) string { s := sha256.Sum256(b); return base64.StdEncoding.EncodeToString(s[:]) }

type object struct {
	Key               string
	LastModified      string
	ETag              string
	Size              int64
	ChecksumAlgorithm string `xml:",omitempty"`
	ChecksumType      string `xml:",omitempty"`
	StorageClass      string
}

type listing struct {
	XMLName               xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name                  string
	Prefix                string
	Delimiter             string `xml:",omitempty"`
	MaxKeys               int
	KeyCount              int
	IsTruncated           bool
	ContinuationToken     string   `xml:",omitempty"`
	NextContinuationToken string   `xml:",omitempty"`
	Contents              []object `xml:"Contents"`
	CommonPrefixes        []struct{ Prefix string }
}

// list answers ListObjectsV2: keys after the continuation token (the last
// key or common prefix of the page before), at most max-keys of them.
func list(w http.ResponseWriter, q map[string][]string) {
	lists.Add(1)
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	p, delim, after := get("prefix"), get("delimiter"), get("continuation-token")
	if after == "" {
		after = get("start-after")
	}
	max := 1000
	if m, err := strconv.Atoi(get("max-keys")); err == nil && m > 0 && m < max {
		max = m
	}
	out := listing{Name: *bucket, Prefix: p, Delimiter: delim, MaxKeys: max, ContinuationToken: get("continuation-token")}
	i := sort.Search(*n, func(i int) bool { return key(i) >= p })
	if after != "" {
		skip := after
		if delim != "" && strings.HasSuffix(after, delim) {
			skip += "\xff" // past every key of that common prefix
		}
		i = max2(i, sort.Search(*n, func(i int) bool { return key(i) > skip }))
	}
	last := ""
	for ; i < *n && out.KeyCount < max; i++ {
		k := key(i)
		if !strings.HasPrefix(k, p) {
			break
		}
		if delim != "" {
			if j := strings.Index(k[len(p):], delim); j >= 0 {
				cp := k[:len(p)+j+len(delim)]
				out.CommonPrefixes = append(out.CommonPrefixes, struct{ Prefix string }{cp})
				out.KeyCount++
				last = cp
				i = sort.Search(*n, func(i int) bool { return key(i) > cp+"\xff" }) - 1
				continue
			}
		}
		if i == 0 && *big > 0 {
			out.Contents = append(out.Contents, object{Key: k, LastModified: modified.Format(time.RFC3339), ETag: `"` + bigETag + `"`,
				Size: *big, StorageClass: "STANDARD"})
		} else {
			b := content(i)
			out.Contents = append(out.Contents, object{Key: k, LastModified: modified.Format(time.RFC3339), ETag: `"` + etag(b) + `"`,
				Size: int64(len(b)), ChecksumAlgorithm: "SHA256", ChecksumType: "FULL_OBJECT", StorageClass: "STANDARD"})
		}
		out.KeyCount++
		last = k
	}
	if i < *n && strings.HasPrefix(key(i), p) {
		out.IsTruncated, out.NextContinuationToken = true, last
	}
	w.Header().Set("Content-Type", "application/xml")
	fmt.Fprint(w, xml.Header)
	if err := xml.NewEncoder(w).Encode(out); err != nil {
		log.Print(err)
	}
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// object answers HeadObject and GetObject, If-Match checked.
func serveObject(w http.ResponseWriter, r *http.Request, k string) {
	i := index(k)
	if i < 0 {
		w.WriteHeader(http.StatusNotFound)
		if r.Method == http.MethodGet {
			fmt.Fprintf(w, "<Error><Code>NoSuchKey</Code><Message>no such key</Message></Error>")
		}
		return
	}
	if i == 0 && *big > 0 {
		serveBig(w, r)
		return
	}
	b := content(i)
	tag := etag(b)
	if m := r.Header.Get("If-Match"); m != "" && strings.Trim(m, `"`) != tag {
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	h := w.Header()
	h.Set("ETag", `"`+tag+`"`)
	h.Set("Last-Modified", modified.Format(http.TimeFormat))
	h.Set("Content-Type", "binary/octet-stream")
	h.Set("x-amz-checksum-sha256", sha(b))
	h.Set("x-amz-checksum-type", "FULL_OBJECT")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		heads.Add(1)
		return
	}
	gets.Add(1)
	w.Write(b)
}

// serveBig answers HeadObject and GetObject (from a byte on, with a
// Range bytes=N-) of the big object.
func serveBig(w http.ResponseWriter, r *http.Request) {
	if m := r.Header.Get("If-Match"); m != "" && strings.Trim(m, `"`) != bigETag {
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	var off int64
	if rg, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes="); ok {
		off, _ = strconv.ParseInt(strings.TrimSuffix(rg, "-"), 10, 64)
	}
	h := w.Header()
	h.Set("ETag", `"`+bigETag+`"`)
	h.Set("Last-Modified", modified.Format(http.TimeFormat))
	h.Set("Content-Type", "binary/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(*big-off, 10))
	if r.Method == http.MethodHead {
		heads.Add(1)
		return
	}
	gets.Add(1)
	if off > 0 {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", off, *big-1, *big))
		w.WriteHeader(http.StatusPartialContent)
	}
	io.Copy(w, bigReader(off))
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "the address to listen on")
	sumBig := flag.Bool("sum-big", false, "print the SHA-256 of the big object (-big) and exit")
	flag.Parse()
	if *sumBig {
		h := sha256.New()
		io.Copy(h, bigReader(0))
		fmt.Printf("%x\n", h.Sum(nil))
		return
	}
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_stats" {
			fmt.Fprintf(w, "ListObjectsV2 %d\nHeadObject %d\nGetObject %d\n", lists.Load(), heads.Load(), gets.Load())
			return
		}
		path := strings.TrimPrefix(r.URL.Path, "/")
		b, k, _ := strings.Cut(path, "/")
		switch {
		case b != *bucket:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "<Error><Code>NoSuchBucket</Code><Message>no such bucket</Message></Error>")
		case k == "" && r.Method == http.MethodGet && r.URL.Query().Get("list-type") == "2":
			list(w, r.URL.Query())
		case k != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			serveObject(w, r, k)
		default:
			w.WriteHeader(http.StatusNotImplemented)
			fmt.Fprint(w, "<Error><Code>NotImplemented</Code><Message>not in s3fake</Message></Error>")
		}
	})))
}
