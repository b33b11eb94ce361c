// Package dumps writes the two dumps of a build: the Resource Dump
// (section 11: [ResourceDump]), packages of every file published under
// resourcedump.xml, and the Change Dump (section 13: [ChangeDump]), each
// build's packages of what it found created or updated, carried forward,
// under changedump.xml. Both package with zipdump alike ([Packaging]),
// from a [Source] of the build's tree or archive; a file that cannot be
// packaged is a problem of the build (report.Problems).
//
// A dump is used by one goroutine; zipdump's workers call Files.Open from
// several at once.
package dumps
