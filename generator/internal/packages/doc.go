// Package packages publishes the previous build's dump packages again, as
// they were, once checked against their entry's length and digests (one
// without a digest rsgen computes is refused): from a previous output
// directory each is opened once, checked through that descriptor and
// hard-linked from it (or copied, on another file system); over HTTP the
// copy is checked. A [Package] is also how a build lists its own.
//
// A Copier is used by one goroutine at a time; the packages it links or
// copies are the build's, in its stage.
package packages
