// Package archivescan is the source of a build that publishes the tree a
// .tar, .tar.gz, .tgz or .zip file holds, without unpacking it: the
// members are the files, under the same URL mapping, filter and hashing
// as a tree's, their modification times the lastmod. The walk of the
// data is: member → hashing (a zip's members by the pool of package
// hashing, several at once; a tar's in this goroutine, as the stream
// comes) → Resource → sorted on disk (package internal/storage/extsort), where the
// names held twice are found → spooled (package spill).
//
// An archive is trusted only once all of it has been read: a damaged one is ErrDamaged, and nothing of it is published. A member
// that cannot be published is a problem of the build, never written
// anywhere. A Resource Dump reads the published members again
// (Archive.OpenMembers), by the positions Scan.Index kept.
//
// A Scan runs once, from one goroutine, and writes into its Archive the
// positions it keeps; Members may then be opened from several goroutines
// for a zip, and in the order of the archive, from one, for a tar.
package archivescan
