// Package detect finds what changed in a build since the previous one: it
// joins the resources the build found with the previous build's Resource
// List, by content.
//
// The previous build's entries are spooled in the order of their paths
// beside the scan ([SpoolPrevious]); [Join.Run] merge-joins them with the
// scanned resources, one at a time, into a verdict for each path (created,
// deleted, updated, unchanged, or unknown until the file is read again for
// a digest the previous build used), and spools the changes, sorted by
// datetime, and the resources again with the lastmods they were published
// with. Neither list is held in memory. Before it, [Join.KeepUnread] keeps
// the previous entries of the files the scan could not read; after it,
// [Join.Reconcile] turns the changes of resources left out in the end into
// deletions.
//
// A Join is used by one goroutine; a [Previous] is written by a goroutine
// of its own.
package detect
