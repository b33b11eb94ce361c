// Package bucketscan is the source of a build that publishes the objects
// of an S3 bucket under a prefix (package internal/inputs/bucket): each object is
// a resource, its URL the base URL and its key under the prefix, escaped
// as a file's path is, its length and lastmod the listing's.
//
// The objects come from the bucket's listing or, for a bucket too large
// to list, from an S3 Inventory of it, in the order of their keys, to the
// scan of package treescan (Source is a treescan.Source), which reads
// them with Source.Reads in flight (an object store is bound by latency:
// tens of requests in flight keep it busy on two cores). An object's
// digests come, in this order, from the hash cache of the last build
// (keyed by size, time and ETag: an unchanged rebuild sends no request
// per object), from the store (internal/inputs/bucket.Bucket.Stored), or from
// its bytes, streamed through the hashers and never written to disk.
//
// Keys that cannot be resources (control characters, an empty, "." or
// ".." segment, not UTF-8) are problems, as unpublishable file names are;
// so is an object replaced between the listing and its read.
package bucketscan
