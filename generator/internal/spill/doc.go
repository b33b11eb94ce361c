// Package spill carries the resources of a build from step to step, and
// its changes, through spool files in the build's stage, so that a build's
// memory does not depend on the number of files.
//
// An [Area] is the directory of a build's spill files in its stage, made
// on first use and removed, with every spool made in it, before the stage
// is checked and published; on a failure or a crash it goes with the
// stage. A [ResourceSpool] holds the [Resource]s of one step in the order
// of their paths, each stored with the prefixes it shares with the one
// before (a path, a URL) left out, and is read again as often as needed
// through an [Iter]; a [ChangeSet] sorts a build's [Change]s by
// their datetime on disk (package internal/storage/extsort) and keeps only the
// datetimes in memory, which the Change Lists are cut by.
//
// A spool that cannot be written or read back fails with an error that
// wraps [ErrSpool].
package spill
