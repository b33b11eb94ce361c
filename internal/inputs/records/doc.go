// Package records reads record exports: the catalogue of a publisher that
// has no file tree, one record per line of JSON Lines or per row of CSV,
// each naming a published page (loc), its modified time, and optionally
// when it was created, whether it is a tombstone, its publication status,
// digests, length, media type, a local file holding its bytes, and links
// (ResourceSync section 14).
//
// A [Reader] reads an export as a stream, for parallel parsing:
// [Reader.ReadBatch] collects the raw lines or rows of many records into a
// [Batch] (sequentially, from the one goroutine that reads), and
// [Reader.Parse] turns one of them into a [Record], or an error that says
// why the record at its Line is bad; reading goes on after a bad record.
// Parse may be called from several goroutines at once, on different
// batches or on the same one. The CSV header and gzip compression are
// handled by [NewReader].
//
// The package checks the syntax of every field (URLs, W3C datetimes with
// their time zone, hash tokens, media types, lengths) and normalises what
// is published: times to UTC, hash tokens and host names to lower case.
// It knows nothing of base URLs or of the documents written from the
// records: resolving a path against a base URL and finding duplicate
// locations are the generator's work.
package records
