// Package detect finds what changed in a build since the previous one: it
// joins the resources the build found with the previous build's Resource
// List, by content.
//
// The data walk is: the previous build's entries, read beside the scan and
// spooled in the order of their paths ([SpoolPrevious]: a list published
// in another order is sorted on disk), and the resources the scan found,
// spooled in the same order (package spill) → a merge-join of the two, one
// entry and one resource at a time ([Join.Run]) → a verdict for each path:
// created, deleted, updated, unchanged, or unknown until the file is read
// again for a digest the previous build used (Join.ReadAgain) → the
// changes, spooled and sorted by their datetimes (spill.ChangeSet), and the
// resources spooled again, the unchanged ones with the lastmod they were
// published with. Neither list is held in memory.
//
// Before the join, [Join.KeepUnread] merges the previous entries of the
// files the scan could not read into its resources, kept as they were
// rather than deleted; after it, [Join.Reconcile] turns the changes of the
// resources the build left out in the end into deletions.
//
// A Join is used by one goroutine; a [Previous] is written by a goroutine
// of its own, and its entries may be read ([Previous.iter]) once complete.
package detect
