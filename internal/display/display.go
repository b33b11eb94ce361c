// Package display shows names that come from outside (files, archive
// members, records) in messages.
package display

import (
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
