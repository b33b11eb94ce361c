// Package packages publishes again the packages of the dumps of the
// previous build (the Change Dump's, those of the archived Change Dumps and
// Resource Dumps), as they were published: each [Package] is hard-linked
// from a previous output directory on the same file system, else copied
// (from another file system, or over HTTP) and checked against the length
// and digests its entry gives.
//
// A Copier is used by one goroutine at a time; the packages it links or
// copies are the build's, in its stage.
package packages
