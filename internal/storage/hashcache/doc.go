// Package hashcache remembers the digests of files between builds, keyed
// by their path and checked against what stat says of them (size,
// modification and change times to the nanosecond, inode, device): a file
// whose stat is unchanged is not read again.
//
// The cache is one file: a magic string, the format [Version], the source
// directory, the number of entries (a varint padded to ten bytes, filled
// in at the end), the entries sorted by path in byte order (each path as
// the length of the prefix it shares with the one before and the rest),
// and a CRC-32C of everything before it. A build streams it in the order
// of its walk: [Open]'s [Reader.Find] moves forward through ascending
// paths, [Create]'s [Writer] takes entries in ascending order and
// [Writer.Commit] renames the new file over the cache.
//
// No stat cache sees a write that keeps the size, the modification time
// and the change time; the change time cannot be set by programs (touch,
// cp -p, rsync -t, git set only the modification time). A file written
// within the timestamp granularity of the moment it was read could keep
// its times: such entries are not stored (settledBefore), as git does for
// its index.
//
// A Reader and a Writer are used by one goroutine at a time.
package hashcache
