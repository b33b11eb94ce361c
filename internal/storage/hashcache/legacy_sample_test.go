package hashcache

import (
	"crypto/sha256"
	"fmt"

	"strings"

	"github.com/rsgen/rsgen/hashing"
)

// legacySample is the cache stored in testdata/v1-minimal-count.cache,
// written by Cache.Save before the count of entries was padded: its count
// is a minimal varint. Both readers must keep reading such files.
func legacySample() *Cache {
	c := New("/src")
	for i := range 200 {
		e := &Entry{Stat: Stat{Size: int64(i * 37), Mtime: 1717200000_123456789 + int64(i), Ctime: 1717200001_000000000 - int64(i), Ino: uint64(1000 + i), Dev: 2049}}
		d := sha256.Sum256([]byte(fmt.Sprint(i)))
		e.SetSum(hashing.Set{hashing.SHA256}, d[:])
		if i%3 == 0 {
			e.SetSum(hashing.Set{hashing.MD5}, d[:16])
		}
		if i%10 == 0 {
			e.Type = "text/plain"
		}
		c.Put(fmt.Sprintf("dir%d/sub/file-%04d.html", i/50, i), e)
	}
	c.Put("dir9/line\nbreak", &Entry{Stat: Stat{Size: 1}})
	c.Put("dir9/long-"+strings.Repeat("x", 300), &Entry{Stat: Stat{Size: 2}, Type: "application/pdf"})
	return c
}
