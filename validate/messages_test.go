package validate

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/rsgen/rsgen/internal/published/rules"
)

// TestUTF16IsNotUTF8: a UTF-16 document (with or without a byte order
// mark, either byte order) is refused for its encoding, which Sitemaps
// require to be UTF-8, not as malformed XML.
func TestUTF16IsNotUTF8(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("testdata/broken/loc-escape.xml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(doc), `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
	encode := func(bom bool, order binary.ByteOrder) []byte {
		if bom {
			text = "\uFEFF" + text
			defer func() { text = text[len("\uFEFF"):] }()
		}
		u := utf16.Encode([]rune(text))
		b := make([]byte, 2*len(u))
		for i, c := range u {
			order.PutUint16(b[2*i:], c)
		}
		return b
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"LE with BOM", encode(true, binary.LittleEndian)},
		{"BE with BOM", encode(true, binary.BigEndian)},
		{"LE", encode(false, binary.LittleEndian)},
		{"BE", encode(false, binary.BigEndian)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "doc.xml")
			if err := os.WriteFile(p, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Path(context.Background(), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) != 1 {
				t.Fatalf("findings %v, want one", rep.Findings)
			}
			f := rep.Findings[0]
			if f.Rule != RuleXML || !strings.Contains(f.Message, "UTF-16") || !strings.Contains(f.Message, "not UTF-8") || strings.Contains(f.Message, "well-formed") {
				t.Errorf("finding %s; want rule xml saying the document is UTF-16, not UTF-8", f)
			}
		})
	}
}

// TestPathMessageSaysWhatIsWrong: the message of a path that breaks the
// schema's pattern says what it breaks, and does not read as if a path
// without a leading slash had one.
func TestPathMessageSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ path, want string }{
		{"resources/res1", "does not start with /"},
		{"/resources/", "ends with /"},
		{"/", "ends with /"},
		{"/a\nb", "line break"},
	} {
		msg := rules.Path(tt.path)
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, "it starts with /") {
			t.Errorf("rules.Path(%q) = %q, want it to say %q", tt.path, msg, tt.want)
		}
	}
	if msg := rules.Path("/resources/res1"); msg != "" {
		t.Errorf("a valid path: %q", msg)
	}
}

// TestDatetimeOutsideBothBounds: a datetime after until and before from (a
// document whose until is before its from) breaks datetime-range twice,
// one finding for each bound, as before the rule was shared with previous.
func TestDatetimeOutsideBothBounds(t *testing.T) {
	t.Parallel()
	rep := validateEdited(t, "testdata/broken/datetime-range.xml", `from="2013-01-03T00:00:00Z" until="2013-01-04T00:00:00Z"`,
		`from="2013-01-03T00:00:00Z" until="2013-01-01T00:00:00Z"`)
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleDatetimeRange {
			got = append(got, f.Message)
		}
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, "\n"), "before the document's from=") ||
		!strings.Contains(strings.Join(got, "\n"), "after the document's until=") {
		t.Errorf("datetime-range findings %q, want one before from and one after until", got)
	}
}

// TestAttributeLineBreakIsASpace: a line break written in an attribute
// value is read as a space (XML 1.0 §3.3.3), as the official validator
// reads it, and the finding quotes the value so; one written &#10; stays.
func TestAttributeLineBreakIsASpace(t *testing.T) {
	t.Parallel()
	for written, want := range map[string]string{"text/\nplain": `type="text/ plain"`, "text/&#10;plain": `type="text/\nplain"`} {
		rep := validateEdited(t, "testdata/broken/type.xml", `type="text/html; charset=utf-8"`, `type="`+written+`"`)
		if len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleType || !strings.Contains(rep.Findings[0].Message, want) {
			t.Errorf("%q: findings %v, want one of rule type quoting %s", written, rep.Findings, want)
		}
	}
}

// validateEdited validates a copy of the document file with old replaced by
// new once.
func validateEdited(t *testing.T, file, old, new string) *Report {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(p, []byte(strings.Replace(string(doc), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Path(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
