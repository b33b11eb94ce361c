// Package display shows names that come from outside (files, archive
// members, records) in messages, and the errors of reading them in words
// a person can act on (ReadError).
package display

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/xrash/smetrics"

	"github.com/rsgen/rsgen/hashing"
)

// Name quotes a name that a terminal or a log would not show as it is:
// one with a line break, an escape sequence or another control or
// bidirectional character could forge lines of a CI log or drive the
// terminal. Other names are returned as they are.
func Name(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, unsafe) {
		return strconv.Quote(name)
	}
	return name
}

// Message shows a message that may name things from outside without
// quoting them (a record's field, an archive member, a path in an error of
// the system) on one line: each control or bidirectional character, and
// each byte that is not UTF-8, is written as its Go escape (\n, \x1b,
// \u202e, \xff), so that no name can forge a line of a log.
func Message(msg string) string {
	if utf8.ValidString(msg) && !strings.ContainsFunc(msg, unsafe) {
		return msg
	}
	var b strings.Builder
	for msg != "" {
		r, size := utf8.DecodeRuneInString(msg)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", msg[0])
		case unsafe(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		msg = msg[size:]
	}
	return b.String()
}

func unsafe(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
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

// ReadError turns the error of reading one file into words a person can
// act on.
func ReadError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("vanished during the build (deleted or renamed after it was listed)")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied; make it readable or exclude it")
	case errors.Is(err, hashing.ErrChanged):
		return fmt.Errorf("%w; publish again once the tree is stable", WithoutPath(err))
	case errors.Is(err, hashing.ErrNotRegular):
		return fmt.Errorf("replaced during the build: %w", WithoutPath(err))
	case errors.Is(err, syscall.ELOOP):
		// Files are opened without following a final symbolic link: one
		// that is there now was not when the walk listed a file.
		return errors.New("replaced during the build by a symbolic link, which is not followed")
	}
	return WithoutPath(err)
}

// Closest returns the one of names that typed most likely means, or "" if
// none is close, by the measure urfave/cli guesses flags with
// (Jaro-Winkler), over the names written without case, - or _ (baseURL
// and base_url are base-url).
func Closest(typed string, names []string) string {
	fold := strings.NewReplacer("-", "", "_", "")
	best, score := "", 0.75
	for _, n := range names {
		if s := smetrics.JaroWinkler(fold.Replace(strings.ToLower(typed)), fold.Replace(n), 0.7, 4); s > score {
			best, score = n, s
		}
	}
	return best
}
