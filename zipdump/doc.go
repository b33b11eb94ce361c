// Package zipdump writes the ZIP packages of a Resource Dump (ResourceSync
// 1.1, section 11): each holds bitstreams at their relative paths and, at
// its top level, manifest.xml, the Resource Dump Manifest (section 11.2)
// that names each bitstream's URI, path, length, digests and type.
//
// [Run] packages a list of [Item]s whose lengths and digests are already
// known (from the pass that wrote the Resource List): it does not trust
// them, it checks them. Every byte copied into a package is hashed again;
// a file that changed or vanished since it was hashed is taken back out of
// its package and left out of its manifest, so that a manifest never
// describes bytes its package does not hold.
//
// Work is shared the way a parallel gzip shares it: files are read and
// deflated by a pool of workers, large ones in chunks joined into one
// Deflate stream, and a single writer puts the results into the package
// in order. The bytes of a package depend only on the items and the
// options, never on the number of workers, on timing or on how the items
// are read (Options.Open, Options.Sequential). The writer is rsgen's own
// (zip.go), not archive/zip's, whose CreateRaw leaves the ZIP64 extra
// field out of local headers: `unzip -t` then rejects entries over 4 GiB;
// whose CreateHeader writes data descriptors; and which cannot take back
// an entry whose file changed while it was copied.
//
// Run and [RunSeq] may be called from several goroutines, each call with
// its own Options and output files; Options.Open is called concurrently
// from the workers, unless Options.Sequential is set. The methods of a
// [Seq] are called from one goroutine at a time.
package zipdump
