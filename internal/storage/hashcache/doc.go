// Package hashcache remembers the digests of files between builds, keyed
// by their path and checked against what stat says of them: size,
// modification and change times to the nanosecond, inode and device. A
// file whose stat is unchanged is not read again.
//
// The cache is a single file in a versioned binary format: a magic
// string, the format [Version], the source directory it belongs to, the
// number of entries (a varint padded to ten bytes, so that a writer can
// fill it in at the end; older files have it unpadded, which reads the
// same), the entries sorted by path in byte order (each path stored as the
// length of the prefix it shares with the one before and the rest), and a
// CRC-32C of everything before it.
//
// A build reads and writes the cache as streams in the order of the walk,
// each holding one entry and a buffer: [Open] returns a [Reader] whose
// [Reader.Find] moves forward through ascending paths, and [Create] a
// [Writer] that takes entries in ascending order and [Writer.Commit]
// renames over the cache.
//
// What no stat cache can see: a write that leaves the size, the
// modification time and the change time as they were. The change time
// cannot be set by programs (touch, cp -p, rsync -t, git set only the
// modification time), so this takes changing the system clock or editing
// the disk under the file system. A file written within the timestamp
// granularity of the moment it was read could also keep its times; entries
// whose times are that close to the build are not stored (see
// settledBefore), as git does for its index.
//
// A Reader and a Writer are used by one goroutine at a time.
package hashcache
