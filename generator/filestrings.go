package generator

import (
	"strings"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/uri"
)

// fileStrings returns the Path, Loc and Hash of the Resource of the file
// published as rel, with digests sum, carved out of one allocation: the
// Loc followed by the Hash, and the Path as the tail of the Loc when the
// path needs no percent-encoding (the common case). Strings are immutable,
// so sharing their bytes changes nothing for their users; it saves two of
// the three allocations per file and about a sixth of a build's memory
// (docs/PERFORMANCE.md, "Memory").
func fileStrings(base BaseURL, rel string, set hashing.Set, sum []byte) (path, loc, hash string, err error) {
	var sb strings.Builder
	sb.Grow(len(base.String()) + uri.EscapedPathLen(rel) + set.FormatLen()) // the exact size: one allocation
	sb.WriteString(base.String())
	appendEscapedPath(&sb, rel)
	n := sb.Len()
	if n > MaxLocLength {
		return "", "", "", ErrLocTooLong
	}
	var buf [256]byte
	sb.Write(set.AppendFormat(buf[:0], sum))
	all := sb.String()
	loc, hash = all[:n], all[n:]
	path = rel
	if n-len(base.String()) == len(rel) { // nothing was escaped: the tail of loc is rel
		path = loc[len(base.String()):]
	}
	return path, loc, hash, nil
}

// appendEscapedPath writes rel as the build publishes it
// (uri.AppendEscapedPath), without allocating for paths of common length.
func appendEscapedPath(sb *strings.Builder, rel string) {
	var buf [512]byte
	sb.Write(uri.AppendEscapedPath(buf[:0], rel))
}
