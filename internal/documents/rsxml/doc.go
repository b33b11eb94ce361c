// Package rsxml is rsgen's model of a ResourceSync document (ANSI/NISO
// Z39.99-2017): a Sitemap <urlset> or <sitemapindex> whose root carries one
// <rs:md> and any number of <rs:ln>, and whose entries carry <loc>,
// <lastmod>, one optional <rs:md> and any number of <rs:ln>.
//
// [Writer] streams one document to an io.Writer; [AppendEntry] renders an
// entry into a byte slice, which is how callers measure an entry against
// the 50 MB limit before they write it. [Reader] parses a document as a
// stream, defensively: its input is capped, entities are never expanded and
// every entry carries the line it started on. Its tokenizer is its own:
// it returns the tokens encoding/xml's does (a fuzz test compares them),
// but refuses what encoding/xml lets through and XML 1.0 or Namespaces in
// XML 1.0 forbid (every <!…> declaration with them), and is several
// times faster, which matters to rsgen build, which reads everything it
// writes again before publishing it. The generator, the dump
// packager, the validator and the reader of a previous build all share
// these types, so that what rsgen writes is read back the same way.
//
// Values are kept as the strings that appear in the document: a reader must
// be able to report a malformed datetime rather than lose it. [FormatTime]
// and [ParseTime] convert W3C Datetimes.
//
// A Writer or Reader is not safe for concurrent use.
package rsxml
