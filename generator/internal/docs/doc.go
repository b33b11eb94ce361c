// Package docs writes the ResourceSync documents of one resource set of a
// build into the build's stage. A [Writer] knows the URL of each document
// (the output's URL, then the set's directory, then the name) and the
// limits of one document; it writes lists through the one splitter of
// every list (package internal/documents/listwriter: one document, or past the
// limits parts under an index at the same URL), single documents, and
// documents of the previous build copied byte for byte; and it keeps
// count of what it wrote, of the Capability List's entries (in the order
// advertised) and of the documents copied, which the check of the stage
// names as the previous build's when they fail.
//
// A Writer is used by one goroutine at a time.
package docs
