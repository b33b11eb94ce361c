package report

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Problems added from several goroutines come back by path, then line; a
// FailFast hears each as it is added.
func TestProblems(t *testing.T) {
	t.Parallel()
	var p Problems
	var told []string
	var mu sync.Mutex
	p.FailFast = func(err error) { mu.Lock(); told = append(told, err.Error()); mu.Unlock() }
	var wg sync.WaitGroup
	for _, pr := range []Problem{{Path: "b", Err: errors.New("x")}, {Path: "export.csv", Line: 12, Err: errors.New("bad")},
		{Path: "a", Err: errors.New("y")}, {Path: "export.csv", Line: 3, Err: errors.New("bad")}} {
		wg.Add(1)
		go func() { defer wg.Done(); p.Add(pr) }()
	}
	wg.Wait()
	var got []string
	for _, pr := range p.Sorted() {
		got = append(got, pr.Error())
	}
	want := []string{"a: y", "b: x", "export.csv:3: bad", "export.csv:12: bad"}
	if len(got) != len(want) || len(told) != 4 {
		t.Fatalf("sorted %q, told %d", got, len(told))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sorted %q, want %q", got, want)
			break
		}
	}
}

// A message that names a record's field or a member without quoting it
// stays on one line: a line break in the name must not forge a line of
// the log (a record's "path" of "p\nrsgen: error: …" did).
func TestProblemErrorMessageOneLine(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{"path p\nrsgen: error: forged", "link a\rb", "file \x1b[31mx", "bad \xff\xfe", "mark \u202ex"} {
		got := Problem{Path: "e.jsonl", Line: 5, Err: errors.New(msg)}.Error()
		if strings.ContainsFunc(got, func(r rune) bool { return r < ' ' || r == 0x7f || r == '\u202e' }) || !utf8.ValidString(got) {
			t.Errorf("Error() = %q: shows a control character or a byte that is not UTF-8 as it is", got)
		}
	}
	if got, want := (Problem{Path: "e.jsonl", Line: 5, Err: errors.New("path p\nq: no such file")}).Error(), `e.jsonl:5: path p\nq: no such file`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// A problem is printed on the terminal or into a CI log: a name with a
// line break or an escape sequence is quoted, so that it can neither forge
// lines of the log nor drive the terminal.
func TestProblemNamesArePrintable(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a\nrsgen: published 0 files", "b\x1b]0;pwned\x07.txt", "c\r.txt", "d\u0085.txt", "e\u202e.txt"} {
		msg := Problem{Path: "dir/" + name, Err: errors.New("cannot be packaged")}.Error()
		if strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) {
			t.Errorf("%q is printed as it is", msg)
		}
		if !strings.HasSuffix(msg, ": cannot be packaged") {
			t.Errorf("%q lost its reason", msg)
		}
	}
	if msg := (Problem{Path: "docs/café & crème.html", Err: errors.New("x")}).Error(); msg != "docs/café & crème.html: x" {
		t.Errorf("a printable name is printed as %q", msg)
	}
}
