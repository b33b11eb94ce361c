// Package dumps writes the two dumps of a build, whose packages hold the
// bytes of the resources: the Resource Dump (section 11: ResourceDump),
// the ZIP packages of every file published and resourcedump.xml over
// them, and the Change Dump (section 13: ChangeDump), the packages of what
// each build found created or updated, carried forward from build to
// build, and changedump.xml over them. Both write their packages with
// package zipdump, alike ([Packaging]), into the stage through the
// document writer of the set (docs.Writer).
//
// The dumps do not know where the files come from: the build gives them a
// [Source] that opens the files of its tree or the members of its
// archive. A file that cannot be packaged is a problem of the build
// (report.Problems); the archives of the dumps are package archives', and
// the packages of the previous build are published again by package
// packages.
//
// A dump is used by one goroutine; it runs the workers of zipdump, which
// open files from several goroutines at once (Files.Open).
package dumps
