// Package validate checks ResourceSync 1.1 (ANSI/NISO Z39.99-2017)
// documents: each alone, against the spec and what the official schemas
// check; a directory or a site as a whole, following its navigation links
// (section 6.2); and, when asked, the resources themselves (the audit).
//
// [Path] validates a file or a directory, [Site] a site or a document over
// HTTP, [Target] either. Each returns a [Report] of [Finding]s, each naming
// the document, the line where there is one, the [Rule] broken (its ID and
// the section of the spec it comes from) and its [Severity]. [Rules] lists
// every rule. Documents are read as streams with the shared
// internal/documents/rsxml Reader: memory stays flat whatever their size, and no
// body is read past the spec's 50 MB. Values are read by the build's own
// parsers, in the mode that reports every problem where there is one:
// datetimes by rsxml.ParseTimeForm, media types by internal/documents/mediatype,
// hash attributes by hashing.ScanAttr; what validate adds is which forms a
// field allows and the words of its findings. The rules a build reading
// its previous output refuses too are judged by internal/published/rules,
// for both, in one wording.
//
// The validator agrees with the official one (rs-validate.py: the
// schemas plus its spec checks) on every rule the two share, and is
// stricter or more lenient in a few documented places (docs/VALIDATE.md):
// correct media types with dots are warnings, not errors; relative <loc>s,
// negative lengths, links without rel or href are errors.
//
// The functions may be called from several goroutines; each call has its
// own state. Path checks the documents of a directory GOMAXPROCS at a time
// (the report is the same whatever their order); an audit reads
// Options.Jobs resources at once.
package validate
