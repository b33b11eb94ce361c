package records

import (
	"fmt"
	"testing"
)

func benchLine(i int) []byte {
	return fmt.Appendf(nil, `{"loc":"https://example.org/records/%07d","lastmod":"2024-05-01T10:11:12+02:00","created":"2023-01-01T00:00:00Z","status":"published","hash":"sha-256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","length":12345,"type":"text/html"}`, i)
}

func BenchmarkParseJSONLine(b *testing.B) {
	line := benchLine(1234567)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseJSONLine(line, 1); err != nil {
			b.Fatal(err)
		}
	}
}
