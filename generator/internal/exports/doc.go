// Package exports publishes a record export: a catalogue of one record per
// line of JSON Lines or row of CSV (package internal/inputs/records), given
// instead of a directory tree. Its published records make the Resource
// List (and, when asked, the Resource Dump of their local files) and,
// from their times alone, a Change List of a trailing window. The rules
// are in docs/EXPORTS.md; in short: only records whose status is
// "published" (or absent) appear anywhere, a draft not even as a deletion;
// a tombstone is a deletion at its deletion time, else at its lastmod; the
// Change List holds each record's last event in the window, oldest first,
// and stays open (no until: section 12.1 says a closed list is never
// updated again); a record without a time omits the Change List with a
// warning rather than invent one.
//
// A [Source] is one export in one build, made by [Open] from [Options].
// The build calls its steps in order: [Source.Read], [Source.Check],
// [Source.PackDump] (whose packages the build's Resource Dump lists; they
// may leave records out), [Source.WriteResourceList],
// [Source.WriteChangeList], and then [Source.Close]; [Source.Report] says
// what the export held.
//
// The data walk: a record (a batch of raw lines, read by one goroutine) →
// a job of a pool of workers (worker.go), which parse the records and
// read, hash and check the local files some of them name → a Resource,
// encoded as a key and a payload (item.go) → sorted on disk by
// extsort.Sorters: by loc (the Resource List), by time (the Change List)
// and by path (the Resource Dump, dump.go) → passes over each sorter
// (write.go: the duplicates, then the lists) → the entries of the
// documents, through the build's docs.Writer.
//
// A Source is used by one goroutine at a time; Read runs its own workers.
package exports
