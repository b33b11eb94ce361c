// Package hashing computes the digests rsgen publishes in the hash
// attribute of <rs:md> (ResourceSync 1.1, section 7), and runs the worker
// pool that reads and hashes the files of a build.
//
// [Algorithm] is the one table of hash algorithms: md5, sha-1, sha-256 and
// blake3 are publishable (a [Set] holds only those); sha-224, sha-384 and
// sha-512 are known to [Lookup] so that what rsgen reads is checked too.
//
// A sum is the digests of a Set concatenated in set order, as a [Hasher]
// returns them. A digest has one form up to the XML writer, a [Token],
// computed ([Set.Tokens]) or read. The attribute is written by
// [FormatTokens] and parsed by [ScanAttr] ([ParseAttr] stops at the first
// problem); [Set.Holds] and [Set.Differ] compare tokens with a sum.
//
// A [Hasher] reads each file once whatever the number of digests; it is
// not safe for concurrent use. [Pool.Run] may be called from several
// goroutines, each with its own channels. Its workers open a file in a
// [Dir] relative to it, never through a symbolic link, refuse what is not
// a regular file, and read again one that changed while read, reporting
// [ErrChanged] for one that keeps changing.
package hashing
