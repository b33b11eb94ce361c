// Package exports publishes a record export: a catalogue of one record per
// line of JSON Lines or row of CSV (package internal/records), given
// instead of a directory tree. Its published records make the Resource
// List (and, when asked, the Resource Dump of their local files) and,
// from their times alone, a Change List of a trailing window. The rules,
// documented in docs/EXPORTS.md:
//
//   - Only records whose status is "published", or absent, appear
//     anywhere. A draft is never listed, not even as a deletion: a record
//     that went from published back to draft is gone from the Resource
//     List, and a Destination learns of it only from a tombstone, which is
//     the publisher's to export.
//   - A tombstone (deleted) is a deletion at its deletion time, else at its
//     lastmod; it is never in the Resource List.
//   - The Change List holds, oldest first, every event of the window
//     [snapshot - window, snapshot]: a record created (created equals
//     lastmod, to the second) or updated (otherwise) at its lastmod, and a
//     tombstone deleted at its time. One record gives one event: its last.
//     The list is open (no until): every build rewrites it at the same URL,
//     so it is never final, and section 12.1 says a closed list is never
//     updated again.
//   - A published record or tombstone without a time makes the Change
//     List impossible: it is then omitted with a warning, never invented.
//
// A [Source] is one export in one build, made by [Open] from [Options]:
// what the build gives it (its settings, its document writer, its
// progress and problems, the options of the Resource Dump's packages).
// The build calls its steps in order: [Source.Read], [Source.Check],
// [Source.PackDump] (whose packages the build's Resource Dump lists),
// [Source.WriteResourceList], [Source.WriteChangeList], and then
// [Source.Close]; [Source.Report] says what the export held.
//
// The data walk: a record (a batch of raw lines, read by one goroutine) →
// a job of a pool of workers (worker.go), which parse the records and
// read, hash and check the local files some of them name → digests → a
// Resource, encoded as a key and a payload (item.go) → sorted on disk by
// extsort.Sorters that spill past their memory: by loc (the Resource List),
// by time (the Change List) and by path (the Resource Dump, dump.go) →
// passes over each sorter (write.go: the duplicates, then the lists) →
// the entries of the documents, through the build's docs.Writer → the
// stage.
//
// A Source is used by one goroutine at a time; Read runs its own workers.
package exports
