// Package treescan is the scan of a build's source: a Source lists its
// files in the order of their paths (a directory tree, Walk: package
// internal/inputs/tree; the objects of a bucket, package bucketscan; the
// members of an archive, package archivescan), the scan
// hashes every file it publishes with a pool of workers (package
// hashing), spares the reads of the files the hash cache knows unchanged
// (Cache), and spools the resources in the order of their paths (package
// spill), one at a time, for the build's next steps. The walk of the
// data is: Entry → hashing job (or the cache's entry) → digests →
// Resource, spooled.
//
// Its memory does not depend on the size of the source: the files in
// flight are a window of Scan.Window, and the hash cache is read and
// written as streams in the order of the listing.
//
// A Scan runs once; its listing, checking workers, hashing pool and
// collector are goroutines of its own, which call its Problems and Stats
// and its Source. A Cache belongs to one scan at a time.
package treescan
