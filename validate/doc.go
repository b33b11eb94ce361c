// Package validate checks ResourceSync 1.1 (ANSI/NISO Z39.99-2017)
// documents: each alone, against the spec and what the official schemas
// check; a directory or a site as a whole, following its navigation links
// (section 6.2); and, when asked, the resources themselves (the audit).
//
// [Path] validates a file or a directory, [Site] a site or a document over
// HTTP, [Target] either. Each returns a [Report] of [Finding]s naming the
// document, the line, the [Rule] broken and its [Severity]. Documents are
// streamed through the rsxml Reader (memory stays flat, no body is read
// past 50 MB), and values read by the build's own parsers in the mode
// that reports every problem; the rules a build reading its previous
// output refuses too are judged by internal/published/rules, in one
// wording for both.
//
// The validator agrees with the official one (rs-validate.py) on every
// rule the two share, and differs in a few documented places
// (docs/VALIDATE.md): media types with dots are warnings; relative
// <loc>s, negative lengths, links without rel or href are errors.
//
// The functions may be called from several goroutines. Path checks the
// documents of a directory GOMAXPROCS at a time (the report does not
// depend on their order); an audit reads Options.Jobs resources at once
// (its findings are kept in the order of the entries all the same).
package validate
