// Package previous reads what an earlier rsgen build published, so that a
// new build can report what changed since (ResourceSync 1.1, sections 12
// and 13) with the published site as the only state.
//
// [Read] takes the output directory of the earlier build, the URL where it
// is served, or the bucket it was deployed to (s3://BUCKET/PREFIX/), and
// follows what a Destination follows: the Source Description, the
// Capability List, the Resource List (its index or root only: entries are
// read later by [Site.ResourceIter]), the Change Lists, the Change Dump
// and the archives. It trusts nothing it reads: every document goes
// through the defensive [rsxml.Reader] (capped in bytes and entries, no
// DOCTYPE, no entity expansion); over HTTP, requests have time-outs, a
// deadline per document, bounded retries and redirects, and only the
// host of the given URL (or of its first redirect) is followed; from a
// directory, only regular files inside it are opened. rsgen validate
// makes its requests through a [Fetcher], by the same code.
//
// Every failure is an [*Error] that names the document and, where it has
// one, the line, and wraps one of the Err… kinds for callers that branch
// on them. Read stops at the first failure: what it cannot trust it
// refuses. The rules it shares with rsgen validate are judged, and worded,
// by internal/published/rules; it refuses fewer than validate reports.
//
// Read may be called from several goroutines at once. A [*Site] is not
// modified after Read returns and may be shared; each [ResourceIter] is
// used by one goroutine, and several may read one Site at once.
package previous
