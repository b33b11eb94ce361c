// Package docs writes the ResourceSync documents of one resource set into
// the build's stage. A [Writer] knows the URL of each document and the
// limits of one; it writes lists through package
// internal/documents/listwriter (one document, or parts under an index),
// single documents, and documents of the previous build copied byte for
// byte; it counts what it wrote, the Capability List's entries and the
// documents copied, which the check names as the previous build's when
// they fail.
//
// A Writer is used by one goroutine at a time.
package docs
