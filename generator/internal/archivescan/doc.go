// Package archivescan is the source of a build that publishes the tree a
// .tar, .tar.gz, .tgz or .zip file holds, without unpacking it: the
// members are the files, under the same URL mapping, filter and hashing
// as a tree's, their modification times the lastmod. A Scan is a Source
// of the one scan of package treescan (window, hashing pool, spool); what
// is an archive's own is its listing: member → checked name → an
// external sort by path (package internal/storage/extsort), where the
// names held twice and the files that are also directories are found →
// the scan, in the order of the paths. A tar's members are hashed as the
// stream comes, a zip's by the scan's pool.
//
// An archive is trusted only once all of it has been read: a damaged one
// is ErrDamaged, and nothing of it is published. A member that cannot be
// published is a problem of the build, never written anywhere. A Resource
// Dump reads the published members again (Archive.OpenMembers), by the
// positions Scan.Index kept.
//
// A Scan runs once and writes into its Archive the positions it keeps;
// Members may then be opened from several goroutines for a zip, and in
// the order of the archive, from one, for a tar.
package archivescan
