// Package previous reads what an earlier rsgen build published, so that a
// new build can report what changed since (ResourceSync 1.1, sections 12
// and 13) with the published site as the only state.
//
// [Read] takes the output directory of the earlier build, the URL where it
// is served, or the bucket it was deployed to (s3://BUCKET/PREFIX/), and
// follows what a Destination follows from the Source Description on. It
// trusts nothing it reads: every document goes through the defensive
// [rsxml.Reader] (capped, no DOCTYPE, no entities); over HTTP, requests
// have time-outs, a deadline per document, bounded retries and redirects,
// and stay on the host of the URL (or of its first redirect); from a
// directory, only regular files inside it are opened. rsgen validate
// makes its requests through a [Fetcher], by the same code.
//
// Every failure is an [*Error] naming the document and line, of one of
// the Err… kinds. Read refuses at the first failure; the rules it shares
// with rsgen validate are judged and worded by internal/published/rules.
//
// Read may be called from several goroutines at once. A [*Site] is not
// modified after Read returns; each [ResourceIter] is used by one
// goroutine, and several may read one Site at once.
package previous
