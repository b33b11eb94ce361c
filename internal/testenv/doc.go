// Package testenv holds what the tests of several packages share: the
// environment they run in (Long, the official validator), trees and their
// snapshots (WriteFile, Snapshot, ReadTree) and archives written as test
// input (WriteArchive, TarBytes, GzipBytes, TextMembers), what the tests
// check of an output (NoStage, ReadList, Unzip) and where they run: Main,
// each package's TestMain, puts their temporary directories on a memory
// file system where there is one, unless TMPDIR is set (MemTemp). Only
// tests import it.
//
// The default `go test ./...` is meant for a newcomer's laptop: about a
// minute, a few hundred MB of disk at most. Tests whose size is the point
// and that cost minutes or gigabytes (a 4 GiB ZIP64 package) run only when
// RSGEN_LONG_TESTS=1, as .ci/run sets it, and never with -short.
package testenv
