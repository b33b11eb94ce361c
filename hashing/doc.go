// Package hashing computes the content digests that rsgen publishes in the
// hash attribute of <rs:md> (ResourceSync 1.1, section 7), and runs the
// worker pool that reads and hashes the files of a build.
//
// The one table of hash algorithms is here ([Algorithm]): md5, sha-1,
// sha-256 and blake3 are publishable (a [Set], the ordered list a build
// publishes, holds only those); sha-224, sha-384 and sha-512 are known to
// [Lookup] so that what rsgen reads (a previous build by another tool, a
// record export, a site it validates) is checked for their lengths and
// audited. The validator, records, rsxml, the hash cache and zipdump have
// no table of their own.
//
// A sum is the digests of a Set concatenated in set order, as a [Hasher]
// returns them. A digest has one form from the hash to the XML writer, a
// [Token], whether rsgen computed it ([Set.Tokens]) or read it. The hash
// attribute is written in one place, [FormatTokens], and parsed in one
// place, [ScanAttr] ([ParseAttr] stops at the first problem); [Set.Holds]
// and [Set.Differ] compare tokens with a sum, on bytes.
//
// A [Hasher] reads each file exactly once whatever the number of digests;
// it is not safe for concurrent use: each worker of a [Pool] owns one.
//
// [Pool.Run] may be called from several goroutines, each call with its own
// channels. Its reads in flight ([Pool.Reads]) are chosen apart from its
// hashers ([Pool.Workers]): a cold disk or an object store needs more of
// the first. A Job may name a file in a [Dir] that a walk holds open
// (package tree owns them), opened relative to it, never through a
// symbolic link. The workers refuse what is not a regular file, and read
// again a file that changed while it was read, reporting [ErrChanged] for
// one that keeps changing.
package hashing
