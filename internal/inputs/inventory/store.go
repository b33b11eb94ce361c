package inventory

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
)

// Scheme is the prefix of a source that is an S3 Inventory:
// s3-inventory://BUCKET/KEY/manifest.json.
const Scheme = "s3-inventory://"

// IsSource reports whether source names an inventory: an
// s3-inventory:// URL, or a local file named manifest.json (a SOURCE is
// otherwise a folder or an archive).
func IsSource(source string) bool {
	return strings.HasPrefix(source, Scheme) || !strings.Contains(source, "://") && filepath.Base(source) == "manifest.json"
}

// A store is where a manifest and the files it names are: a folder (a
// copy of the destination bucket, or of the files of one inventory) or
// the bucket itself.
type store interface {
	// open returns the file of key (a key of the destination bucket),
	// of size bytes if size is not -1.
	open(ctx context.Context, key string, size int64) (io.ReadCloser, error)
	name(key string) string // how an error names the file of key
}

// openManifest returns the bytes of the manifest at loc (a local path,
// s3://BUCKET/KEY or s3-inventory://BUCKET/KEY), checked against the
// manifest.checksum beside it if there is one, and the store of the
// files it names.
func openManifest(ctx context.Context, loc string, opts []func(*config.LoadOptions) error) ([]byte, store, error) {
	var st store
	var key string
	var manifest, checksum []byte
	var err error
	if s3url, ok := strings.CutPrefix(loc, Scheme); ok || bucket.IsURL(loc) {
		if ok {
			loc = bucket.Scheme + s3url
		}
		var bs *bucketStore
		bs, key, err = openBucketStore(ctx, loc, opts)
		if err != nil {
			return nil, nil, err
		}
		st = bs
		manifest, checksum, err = bs.manifest(ctx, key)
	} else {
		key = filepath.Base(loc)
		st = &dirStore{manifest: loc}
		manifest, err = os.ReadFile(loc)
		if err == nil {
			checksum, err = os.ReadFile(filepath.Join(filepath.Dir(loc), "manifest.checksum"))
			if errors.Is(err, fs.ErrNotExist) {
				checksum, err = nil, nil
			}
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", loc, err)
	}
	if checksum != nil {
		want := strings.ToLower(string(bytes.TrimSpace(checksum)))
		if got := md5.Sum(manifest); hex.EncodeToString(got[:]) != want {
			return nil, nil, fmt.Errorf("%s: its MD5 is %x, not %s as manifest.checksum says: the manifest is damaged or not the one of its checksum", st.name(key), got, want)
		}
	}
	return manifest, st, nil
}

// A dirStore is a folder with a manifest in it.
type dirStore struct{ manifest string }

// path finds the file of key: under a folder above the manifest that
// holds the key whole (a copy of the destination bucket), or its last
// segments, two at least (a copy of one inventory: the manifest's folder
// beside data/; of a report: results/ beside the manifest).
func (d *dirStore) path(key string) string {
	segs := strings.Split(key, "/")
	for dir := filepath.Dir(d.manifest); ; dir = filepath.Dir(dir) {
		for i := 0; i < max(len(segs)-1, 1); i++ {
			p := filepath.Join(dir, filepath.FromSlash(path.Join(segs[i:]...)))
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	return filepath.Join(filepath.Dir(d.manifest), filepath.FromSlash(key))
}

func (d *dirStore) open(_ context.Context, key string, _ int64) (io.ReadCloser, error) {
	return os.Open(d.path(key))
}

func (d *dirStore) name(key string) string { return d.path(key) }

// A bucketStore is the bucket that holds a manifest.
type bucketStore struct {
	b     *bucket.Bucket
	opts  []func(*config.LoadOptions) error
	sizes map[string]map[string]int64 // the sizes of the objects of a folder, by name, by folder
}

// openBucketStore opens the bucket of url, s3://BUCKET/KEY, and returns
// KEY.
func openBucketStore(ctx context.Context, url string, opts []func(*config.LoadOptions) error) (*bucketStore, string, error) {
	rest := strings.TrimPrefix(url, bucket.Scheme)
	name, key, _ := strings.Cut(rest, "/")
	if key == "" || strings.HasSuffix(key, "/") {
		return nil, "", fmt.Errorf("%s: not the URL of a manifest.json", url)
	}
	b, err := bucket.Open(ctx, bucket.Scheme+name+"/", opts...)
	if err != nil {
		return nil, "", err
	}
	return &bucketStore{b: b, opts: opts, sizes: map[string]map[string]int64{}}, key, nil
}

// manifest returns the manifest at key and the manifest.checksum beside
// it, nil if there is none.
func (s *bucketStore) manifest(ctx context.Context, key string) (manifest, checksum []byte, err error) {
	if manifest, err = s.readAll(ctx, key); err != nil {
		return nil, nil, err
	}
	checksum, err = s.readAll(ctx, path.Join(path.Dir(key), "manifest.checksum"))
	if errors.Is(err, fs.ErrNotExist) {
		return manifest, nil, nil
	}
	return manifest, checksum, err
}

// size returns the size of the object at key, or fs.ErrNotExist: its
// folder is listed once (internal/inputs/bucket reads an object of a known
// size, as a listing gives it).
func (s *bucketStore) size(ctx context.Context, key string) (int64, error) {
	dir := path.Dir(key) + "/"
	if dir == "./" {
		dir = ""
	}
	sizes, ok := s.sizes[dir]
	if !ok {
		folder, err := bucket.Open(ctx, bucket.Scheme+s.b.Name+"/"+dir, s.opts...)
		if err != nil {
			return 0, err
		}
		sizes = map[string]int64{}
		err = folder.List(ctx, func(o *bucket.Object) error {
			if !strings.Contains(o.Rel, "/") {
				sizes[o.Rel] = o.Size
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		s.sizes[dir] = sizes
	}
	size, ok := sizes[path.Base(key)]
	if !ok {
		return 0, fmt.Errorf("%s: no such object: %w", s.name(key), fs.ErrNotExist)
	}
	return size, nil
}

func (s *bucketStore) open(ctx context.Context, key string, size int64) (io.ReadCloser, error) {
	if size < 0 {
		var err error
		if size, err = s.size(ctx, key); err != nil {
			return nil, err
		}
	}
	return s.b.Open(ctx, &bucket.Object{Key: key, Size: size})
}

func (s *bucketStore) name(key string) string { return bucket.Scheme + s.b.Name + "/" + key }

// readAll returns the object at key.
func (s *bucketStore) readAll(ctx context.Context, key string) ([]byte, error) {
	r, err := s.open(ctx, key, -1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
