// Package hashing computes the content digests that rsgen publishes in the
// hash attribute of <rs:md> (ResourceSync 1.1, section 7), and runs the
// worker pool that reads and hashes the files of a build.
//
// An [Algorithm] names one digest by its IANA token (md5, sha-1, sha-256,
// blake3); a [Set] is the ordered list a build publishes. A [Hasher] holds
// one reusable hash state per algorithm and a read buffer, so that each
// file is read exactly once whatever the number of digests. A Hasher is not
// safe for concurrent use: each worker of a [Pool] owns one.
//
// [Pool.Run] reads jobs from a channel with a fixed number of workers and
// may be called from several goroutines, each call with its own channels.
// A [Dir] is a directory held open by a walk: a Job may name a file in it,
// which is then opened relative to it, never through a symbolic link. On
// Linux the workers open, stat, read, stat again and close each file with
// raw system calls (five per small file) rather than through [os.File];
// elsewhere they use [os.File]. Both refuse what is not a regular file,
// and read again a file that changed while it was read (its size or
// times, compared before and after), reporting [ErrChanged] for one that
// keeps changing. Hold and Release of a Dir may be called from several
// goroutines.
package hashing
