package rsxml

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"testing"
)

// benchDoc is a Resource List of 50,000 entries as rsgen writes one.
func benchDoc(b *testing.B) []byte {
	entries := benchEntries(50000)
	var buf bytes.Buffer
	w := NewWriter(&buf, Doc{MD: MD{Capability: CapResourceList, At: "2024-06-01T00:00:00Z"}})
	for i := range entries {
		w.Add(&entries[i])
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkReader reads a full Resource List, as rsgen reads a previous
// build's, reusing its entries.
func BenchmarkReader(b *testing.B) {
	benchRead(b, benchDoc(b))
}

// BenchmarkReaderDense reads 50,000 short entries on one line each, which
// has more markup for its bytes.
func BenchmarkReaderDense(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n")
	for i := range 50000 {
		fmt.Fprintf(&buf, "<url><loc>http://example.com/r%d</loc><rs:md length=\"%d\"/></url>\n", i, i)
	}
	buf.WriteString("</urlset>\n")
	benchRead(b, buf.Bytes())
}

// benchRead reads data whole at each iteration, reusing its entries.
func benchRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := NewReader(bytes.NewReader(data), ReadOptions{ReuseEntries: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rd.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEncodingXML is encoding/xml's tokenizer alone over the same
// document: what the Reader would cost at least without its own.
func BenchmarkEncodingXML(b *testing.B) {
	data := benchDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(data))
		for {
			if _, err := d.RawToken(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
