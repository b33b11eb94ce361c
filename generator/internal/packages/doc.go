// Package packages publishes again the packages of the dumps of the
// previous build (the Change Dump's, those of the archived Change Dumps and
// Resource Dumps), as they were published, once checked against the
// length and digests its entry gives (one without a digest rsgen computes
// is refused): from a previous output directory, each [Package] is opened
// once, checked through that descriptor and hard-linked from it (never by
// its name again), or copied from it on another file system; over HTTP it
// is copied and the copy checked. A [Package] is also how a build lists
// its own packages, in the Resource Dump, the Change Dump and their
// archives ([Package.Entry]).
//
// A Copier is used by one goroutine at a time; the packages it links or
// copies are the build's, in its stage.
package packages
