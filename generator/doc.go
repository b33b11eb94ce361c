// Package generator plans and writes the ResourceSync documents of one
// build: it is what "rsgen build" does, without the command line.
//
// [Build] runs one build from a [Config], after [Config.Validate] has
// checked its fields and how they combine: a program that uses this
// package gets the checks of the command line, as [FieldError] values that name
// the fields (the command line names its flags for them). [BuildSite]
// publishes several resource sets into one output directory: each set is
// a build as below, of a Config named by its Set, writing its documents
// into resourcesync/<set>/ of one shared stage; the Source Description
// lists every set's Capability List, and the stage is checked and
// published once, for all of them.
//
// # The data walk
//
//	file (a tree's, or an archive's member)
//	  → hashing job (a pool of workers; the hash cache spares the unchanged)
//	  → digests → Resource, spooled in the order of the paths
//	  → joined with the previous build's Resource List: changes, lastmods
//	  → packaged into the Resource Dump (files that changed are left out)
//	  → entries of the Resource List, the Change Lists, the dumps
//	  → documents in the stage → checked → published
//
// A record export takes the same walk from its records, sorted on disk by
// loc, time and path instead of walked in order. The resources pass from
// step to step through spool files in the stage, one resource at a time,
// so a build's memory does not depend on the number of files.
//
// # Components
//
// This package orders the steps (build.run), wires the components, guards
// against publishing what would lose data (an empty source, mass
// deletion, a previous build of another site, dumps or archives dropped),
// and writes the Capability List and the Source Description. The
// components are packages under generator/internal, each a type with a
// small API that owns its state:
//
// The sources:
//   - treescan: the scan of a source that lists its files in the order
//     of the paths: the hashing pool behind a window that keeps that
//     order, the hash cache read and written as streams (Scan, Source,
//     Cache); a directory tree as that source, the walk of package
//     internal/tree (Walk), and its files read again after the scan (Tree);
//   - archivescan: a .tar, .tar.gz or .zip, read as a stream and checked
//     to its end (Scan, Archive, Members);
//   - bucketscan: the objects of an S3 bucket under a prefix (package
//     internal/bucket) as the source of treescan's scan, their digests
//     from the hash cache, the store or the bytes, 32 at once (Source);
//   - exports: a record export, read by a pool of workers and sorted on
//     disk, in steps the build orders (Source).
//
// Between the steps:
//   - spill: the spill area in the stage, the spools of resources and the
//     change set sorted on disk (Area, ResourceSpool, ChangeSet);
//   - detect: the changes since the previous build, by a merge-join of
//     the resources with its Resource List, spooled beside the scan (Join,
//     Previous);
//   - report (public, generator/report): the build's progress and the files it could not publish
//     (Stats, Problems, Unread).
//
// The documents:
//   - docs: the document writer of a set, which knows the URLs and the
//     limits (section 7, by the one splitter, package internal/listwriter)
//     and writes every document into the stage, with what every archive
//     shares (Writer);
//   - changelists: the Change Lists, from the changes found and those the
//     previous build published, and their archive (Lists);
//   - dumps: the Resource Dump and the Change Dump, whose packages are
//     written alike by package zipdump (ResourceDump, ChangeDump,
//     Packaging);
//   - packages: the previous build's packages published again, checked by
//     their digests, then linked or copied (Package, Copier);
//   - archives: the Resource List, Resource Dump and Change Dump Archives
//     of ResourceSync Archives (ResourceLists, ResourceDumps, ChangeDumps);
//   - hostfiles: the pages rsgen always writes and the configuration of
//     static hosts (Set, StageSite).
//
// generator/layers_test.go keeps the packages in layers: none imports one
// above it.
//
// # Guarantees
//
// Everything is written into a [Stage] inside the output directory,
// checked with package validate, and moved into place by Stage.Publish
// only when the whole build succeeded; a failure or an interrupt discards
// the stage and leaves the published output as it was (package
// internal/stage; docs/PUBLISHING.md states the guarantees).
//
// Output depends only on the input and the Config: entries are written in
// the order of their paths (or, for an export, sorted first), whatever
// Config.Jobs is, and with a fixed snapshot time (Config.At with
// FixedTime) no clock reading reaches a document or a package.
//
// Build may be called from several goroutines for different output
// directories; a second build into a directory that a build holds fails
// with KindOutput ("another build is running into it"). [Config.Stats] may
// be read while a build runs.
package generator
