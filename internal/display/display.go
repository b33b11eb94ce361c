// Package display shows names that come from outside (files, archive
// members, records) in messages.
package display

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name quotes a name that a terminal or a log would not show as it is:
// one with a line break, an escape sequence or another control or
// bidirectional character could forge lines of a CI log or drive the
// terminal. Other names are returned as they are.
func Name(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}) {
		return strconv.Quote(name)
	}
	return name
}

// Rel shows rel, a slash-separated path under a root, as a message names
// it: "." for the root itself.
func Rel(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// WithoutPath drops the path an *fs.PathError carries, keeping what was
// done and what went wrong: a message names the file once, by the name it
// is published under, not by the path it was opened at.
func WithoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
