// Package previous reads what an earlier rsgen build published, so that a
// new build can report what changed since (ResourceSync 1.1, sections 12
// and 13) with the published site as the only state.
//
// [Read] takes the output directory of the earlier build, the URL where
// it is served, or the bucket it was deployed to (s3://BUCKET/PREFIX/, read
// through package bucket's client and its retries, its keys mapped as a
// directory's files), and follows what a Destination follows:
// /.well-known/resourcesync (the Source Description) → the Capability List
// → the Resource List (an index and its parts, or one list) → the Change
// List Index and its lists → the Change Dump, if there is one. Every
// document goes through the defensive [rsxml.Reader]: capped in bytes and
// entries, no DOCTYPE, no entity expansion. Over HTTP, requests have
// timeouts and each document a deadline over all its attempts
// ([HTTPOptions.Deadline]: a server that trickles bytes cannot hold the
// build), failures of the server (5xx, 429, time-outs, dropped
// connections) are retried a bounded number of times with a growing wait,
// redirects are bounded and stay on http or https, and only documents on
// the host of the given URL (or of the one it redirects to first) are
// followed, so that a tampered document cannot send rsgen elsewhere. From a
// directory, only files inside it are opened, and only regular files: a
// FIFO is refused at once, not waited on. rsgen validate makes its
// requests through a [Fetcher]: the same code by validate's policy (one
// attempt, the hosts it chooses, its own deadline).
//
// Read reads no entry of the Resource List: it reads the list's root, or
// its index, and remembers the URLs of its documents. [Site.ResourceIter]
// then reads the entries one document at a time, in ascending order of a
// key the caller gives (the build's path of the file), checking them: a
// list published in that order (rsgen publishes it so) streams through,
// with the memory of one document's parser; one published in another
// order is sorted through spill files ([extsort]) first. Over HTTP each
// document is fetched whole, with the deadline and retries of a document,
// when the iterator reaches it.
//
// Every failure is an [*Error] that names the document (its URL, or its
// path in the directory) and, where it has one, the line, and wraps one of
// the sentinel errors ([ErrUnreachable], [ErrNotResourceSync],
// [ErrCapability], [ErrMalformed], [ErrLimit], [ErrInvalid], [ErrLater])
// for callers that branch on the kind.
//
// Read may be called from several goroutines at once; each call reads
// documents one at a time. A [*Site] is not modified after Read returns and
// may be shared; each [ResourceIter] is used by one goroutine, and several
// may read one Site at once.
package previous
