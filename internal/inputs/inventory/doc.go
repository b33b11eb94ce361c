// Package inventory reads what Amazon S3 writes about a bucket so that a
// build need not list it or read its objects: an S3 Inventory (the source
// of a build for buckets too large to list) and the completion report of
// an S3 Batch Operations *Compute checksum* job (digests the store
// computed at rest).
//
// An inventory is its manifest.json, in a folder or a bucket, naming
// data files (gzip CSV whose columns the manifest's fileSchema orders, or
// Parquet), each checked against the manifest's MD5 (and the manifest
// against manifest.checksum, if there is one) before any row is used. A
// data file's rows are in no order across files: List sorts them by key
// in bounded memory (internal/storage/extsort, which spills runs to disk) and
// gives the current version of each object under a prefix, as
// internal/inputs/bucket's listing does; delete markers and older versions are
// skipped.
//
// A report is its manifest.json and CSV result files, checked likewise.
// Digests gives, in the order of the keys, the full-object SHA-256, SHA-1
// or MD5 the job computed of an object, unless the object changed since
// (another ETag or version, or written after the report). Job writes the
// manifest of a Compute checksum job for the objects that lack one.
//
// Nothing here may be used from several goroutines at once.
package inventory
