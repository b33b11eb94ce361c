// Package spill carries the resources of a build from step to step, and
// its changes, through spool files in the build's stage, so that a build's
// memory does not depend on the number of files.
//
// An [Area] is the directory of a build's spill files in its stage, made
// on first use and removed, with every spool in it, before the stage is
// checked. A [ResourceSpool] holds the [Resource]s of one step in the
// order of their paths (each stored without the prefixes it shares with
// the one before), read again as often as needed through an [Iter]; a
// [ChangeSet] sorts a build's [Change]s by datetime on disk and keeps only
// the datetimes in memory, which the Change Lists are cut by. A spool that
// cannot be written or read back fails with an error wrapping [ErrSpool].
package spill
