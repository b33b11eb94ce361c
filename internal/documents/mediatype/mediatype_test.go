package mediatype

import (
	"strings"
	"testing"
)

func TestByName(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"index.html", "text/html"},
		{"dir/page.HTM", "text/html"},
		{"photo #1.PNG", "image/png"},
		{"a.b/c.json", "application/json"},
		{"data.jsonl", "application/jsonl"},
		{"archive.tar.gz", "application/gzip"},
		{"records.mrc", "application/marc"},
		{"README", ""},
		{"dir.d/README", ""},
		{".hidden", ""}, // path.Ext(".hidden") is ".hidden", not in the table
		{"file.unknownext", ""},
		{"trailing.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ByName(tt.name); got != tt.want {
				t.Errorf("ByName(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

// TestTableIsBare checks every type of the table: bare (no parameters),
// lower case, type/subtype.
func TestTableIsBare(t *testing.T) {
	t.Parallel()
	for ext, typ := range byExt {
		if ext != strings.ToLower(ext) || !strings.HasPrefix(ext, ".") {
			t.Errorf("extension %q is not lower case with a dot", ext)
		}
		if typ != Bare(typ) || strings.Count(typ, "/") != 1 {
			t.Errorf("%s: type %q is not a bare type/subtype", ext, typ)
		}
	}
	for typ := range compressed {
		if typ != Bare(typ) {
			t.Errorf("compressed type %q is not bare", typ)
		}
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"empty", nil, Octet},
		{"html", []byte("<!DOCTYPE html><html><body>x</body></html>"), "text/html"},
		{"plain text, charset dropped", []byte("just some words\n"), "text/plain"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png"},
		{"pdf", []byte("%PDF-1.7\n"), "application/pdf"},
		{"gzip", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), "application/x-gzip"},
		{"binary", []byte{0x00, 0x01, 0x02, 0xfe, 0xff}, Octet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sniff(tt.head)
			if got != tt.want {
				t.Errorf("Sniff = %q, want %q", got, tt.want)
			}
			if strings.ContainsAny(got, "; ") {
				t.Errorf("Sniff = %q has parameters", got)
			}
		})
	}
}

func TestBare(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"text/html; charset=utf-8", "text/html"},
		{" Text/HTML ", "text/html"},
		{"application/json", "application/json"},
		{"text/plain;charset=us-ascii;format=flowed", "text/plain"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Bare(tt.in); got != tt.want {
				t.Errorf("Bare(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIsCompressed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ  string
		want bool
	}{
		{"image/png", true},
		{"application/zip", true},
		{"video/mp4", true},
		{"application/pdf", true},
		{"text/html", false},
		{"application/json", false},
		{"image/svg+xml", false},
		{Octet, false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			if got := IsCompressed(tt.typ); got != tt.want {
				t.Errorf("IsCompressed(%q) = %v, want %v", tt.typ, got, tt.want)
			}
		})
	}
}

// SchemaValid agrees with the official schema's pattern [\w-]+/[\w-]+ for
// XSD's \w (every character but punctuation, separators and others).
func TestSchemaValid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		t           string
		want, valid bool // SchemaValid, Valid
	}{
		{"text/html", true, true},
		{"image/svg+xml", true, true},
		{"application/ld+json", true, true},
		{"application/x-bibtex", true, true},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", false, true},
		{"application/vnd.ms-excel", false, true},
		{"image/vnd.djvu", false, true},
		{"application/x_thing", false, true},
		{"+x/y", true, false}, // a restricted name starts with a letter or digit
		{"text/" + strings.Repeat("x", 128), true, false},
		{"text/html; charset=utf-8", false, false},
		{"text/html;charset=utf-8", false, false},
		{"text/html ", false, false},
		{"text", false, false},
		{"text/", false, false},
		{"/html", false, false},
		{"text/html/x", false, false},
		{"", false, false},
	} {
		if got := SchemaValid(tt.t); got != tt.want {
			t.Errorf("SchemaValid(%q) = %v, want %v", tt.t, got, tt.want)
		}
		if got := Valid(tt.t); got != tt.valid {
			t.Errorf("Valid(%q) = %v, want %v", tt.t, got, tt.valid)
		}
	}
}

// Every type of the table is written or left out by SchemaValid: the
// table may hold types the schema rejects, for IsCompressed and for
// sniffing not to guess, but each is checked here to be known to.
func TestTableTypesSchema(t *testing.T) {
	t.Parallel()
	rejected := 0
	for _, typ := range byExt {
		if !SchemaValid(typ) {
			rejected++
			if !strings.ContainsAny(typ, "._") {
				t.Errorf("%s is rejected for another reason than a dot or an underscore", typ)
			}
		}
	}
	if rejected == 0 {
		t.Error("no type of the table is rejected: the test checks nothing")
	}
}
