// Package treescan is the source of a build that publishes a directory
// tree: it walks the tree (package internal/tree gives the files in the
// order of their paths, filtered), hashes every file it publishes with a
// pool of workers (package hashing), spares the reads of the files the
// hash cache knows unchanged (Cache), and spools the resources in the
// order of their paths (package spill), one at a time, for the build's
// next steps. The walk of the data is: file (tree.File) → hashing job
// (or the cache's entry) → digests → Resource, spooled.
//
// Its memory does not depend on the size of the tree: the files in flight
// are a window of Scan.Window, and the hash cache is read and written as
// streams in the order of the walk.
//
// A Scan runs once; its walk, checking workers, hashing pool and
// collector are goroutines of its own, and the Scan's Problems, Stats and
// Notice are called from them. A Cache belongs to one scan at a time.
package treescan
