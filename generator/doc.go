// Package generator plans and writes the ResourceSync documents of one
// build: it is what "rsgen build" does, without the command line.
//
// [Build] runs one build from a [Config], after [Config.Validate] has
// checked its fields and how they combine: a program that uses this
// package gets the checks of the command line, as [FieldError]s that name
// the fields (the command line names its flags for them). The input is a
// directory tree (package treescan: the walk of package internal/tree,
// which gives the files in the order of their paths, filtered; the
// hashing pool behind a window that keeps that order; the hash cache read
// and written as streams in it), an archive given as the source (package
// archivescan: a zip's members hashed several at once, a tar's sorted on
// disk), or a record export (package exports, wired in exports.go). The
// URLs of files under the base URL are package internal/uri's, the one
// mapping every part of rsgen uses.
//
// The build is a sequence of steps (build.go: build.run) over components
// that each own their state. Twelve are packages of their own, under
// generator/internal:
//
//   - treescan: the source that is a directory tree (Scan, Cache), and its
//     files read again after the scan (Tree);
//   - archivescan: the source that is an archive (Scan, Archive, Members);
//   - detect: the changes since the previous build, found by a merge-join
//     of the resources with its Resource List, spooled beside the scan
//     (Join, Previous), wired in detect.go;
//   - report: what the build tells of itself as it runs, its progress
//     (Stats) and the files it could not publish (Problems);
//   - spill: the spill area in the stage, the spools that carry the
//     resources from step to step in the order of their paths, and the
//     changes found, sorted on disk (Area, ResourceSpool, ChangeSet);
//   - docs: the document writer of a set (docWriter here), which knows the
//     URLs and the limits, writes every document into the stage and counts
//     what it wrote and copied, with what every archive shares;
//   - changelists: the Change Lists published from the changes found and
//     those of the previous build, and their archive (Lists);
//   - packages: the packages of the previous build's dumps published again,
//     linked or copied and checked (Package, Copier);
//   - archives: the Resource List, Resource Dump and Change Dump Archives
//     (ResourceLists, ResourceDumps, ChangeDumps);
//   - exports: the record export as a source (Source), read by a pool of
//     workers and sorted on disk, which packages its files and writes its
//     Resource List and Change List in the steps the build orders;
//   - dumps: the Resource Dump and the Change Dump, their packages written
//     alike (ResourceDump, ChangeDump, Packaging), of the files a Source
//     opens: the tree's (treescan.Tree) or the archive's members
//     (archivescan.Members); the build makes them in dump.go;
//   - hostfiles: the pages rsgen always writes and the configuration of
//     the static hosts, of a build (Set) or of a site of sets (StageSite).
//
// What is left here orders the steps, wires the components (source.go,
// detect.go, dump.go, exports.go), guards against publishing what would
// lose data (guards.go), and writes the Capability List and the Source
// Description. The data walk is:
// file (tree.File or an archive member) → hashing job → digests →
// Resource, spooled in path order → joined with the previous build
// (package detect) → entries of the documents, through the docWriter →
// the stage → published.
//
// The resources of a tree or an archive pass from step to step in the
// order of their paths through spool files in the stage (package spill),
// one resource at a time: the scan writes them, and each step reads them
// and writes the next step's. A build's memory does not depend on the
// number of files. The steps write, in order:
//
//   - the Resource Dump packages (package dumps, with package zipdump),
//     before the Resource List, so that a file that changed since it was
//     hashed is left out of both;
//   - the Resource List, split under an index past the limits of section 7
//     (by package internal/listwriter, the one splitter of every list,
//     through the docWriter (docs.Writer), which writes every document
//     into the stage and knows its URL);
//   - changelist.xml, the changes kept from the previous builds and this
//     one's: one open Change List, or past the limits an index over closed
//     lists (across.go, packages detect and changelists; the Change Dump in
//     package dumps), with the hash cache (package treescan) sparing reads
//     of unchanged files; and, when asked, the archives of ResourceSync
//     Archives (what they share is in package docs): of every build's
//     changes (package changelists), of its Change Dump packages, of
//     Resource Lists now and then and of Resource Dumps with their
//     packages (package archives);
//   - the Capability List, the Source Description, and the files for
//     static hosts (package hostfiles).
//
// Everything is written into a [Stage] inside the output directory, checked
// with package validate (check.go), and moved into place by Stage.Publish
// only when the whole build succeeded; a failure or an interrupt discards
// the stage and leaves the published output as it was. The stage and its
// publish are package internal/stage (the stage and its locks, what rsgen
// wrote and may remove, the publish: synced, journaled, and finished or
// undone after a crash): docs/PUBLISHING.md states the guarantees.
//
// Output depends only on the input and the Config: entries are written in
// the order of their paths (or, for an export, sorted first), and with a
// fixed snapshot time (Config.At with FixedTime) no clock reading reaches a
// document or a package.
//
// [BuildSite] publishes several resource sets into one output directory
// (site.go): each set is a build as above, of a Config named by its Set,
// writing its documents into resourcesync/<set>/ of one shared stage
// (docs.Writer.Dir); the Source Description lists every set's Capability
// List, and the stage is checked and published once, for all of them.
//
// Build may be called from several goroutines for different output
// directories; a second build into a directory that a build holds fails
// with ErrBusy. [Config.Stats] may be read while a build runs.
package generator
