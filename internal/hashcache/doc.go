// Package hashcache remembers the digests of files between builds, keyed
// by their path and checked against what stat says of them: size,
// modification and change times to the nanosecond, inode and device. A
// file whose stat is unchanged is not read again.
//
// The cache is a single file in a versioned binary format: a magic
// string, the format [Version], the source directory it belongs to, the
// entries sorted by path (each path stored as the length of the prefix it
// shares with the one before and the rest), and a CRC-32C of everything
// before it. [Load] refuses a file that is not a cache, of another version
// or another source, or damaged, with an error the caller reports as a
// notice before it starts with an empty cache; [Cache.Save] writes a new
// file beside the old one and renames it over it, so that a reader sees
// the old cache or the new one, never a mix.
//
// What no stat cache can see: a write that leaves the size, the
// modification time and the change time as they were. The change time
// cannot be set by programs (touch, cp -p, rsync -t, git set only the
// modification time), so this takes changing the system clock or editing
// the disk under the file system. A file written within the timestamp
// granularity of the moment it was read could also keep its times; entries
// whose times are that close to the build are not stored (see
// [Stat.SettledBefore]), as git does for its index.
//
// A Cache is not safe for concurrent use; Get may be called from several
// goroutines at once as long as nothing calls Put.
package hashcache
