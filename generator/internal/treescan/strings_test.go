package treescan

import (
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/uri"
)

func TestFileStrings(t *testing.T) {
	base, err := uri.ParseBase("https://example.org/site/")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, rel string
		wantErr   error
	}{
		{"plain", "d000/d00001/file-0000001.html", nil},
		{"escaped", "articles/café & crème.html", nil},
		{"reserved characters", "a#b?c%d+e;f", nil},
		{"every byte", allBytes(), nil},
		{"too long", strings.Repeat("x", uri.MaxLocLength), uri.ErrLocTooLong},
		{"too long once escaped", strings.Repeat("é", uri.MaxLocLength/5), uri.ErrLocTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// found refuses a path too long by this sum, before fileStrings.
			var err error
			if len(base.String())+uri.EscapedPathLen(tt.rel) > uri.MaxLocLength {
				err = uri.ErrLocTooLong
			}
			wantLoc, wantErr := base.Resolve(tt.rel)
			if err != tt.wantErr || wantErr != tt.wantErr {
				t.Fatalf("err = %v (Resolve: %v), want %v", err, wantErr, tt.wantErr)
			}
			if err != nil {
				return
			}
			if path, loc := fileStrings(base, tt.rel); path != tt.rel || loc != wantLoc {
				t.Errorf("fileStrings = %q, %q; want %q, %q", path, loc, tt.rel, wantLoc)
			}
		})
	}
}

func allBytes() string {
	b := make([]byte, 0, 255)
	for c := 1; c < 256; c++ {
		b = append(b, byte(c))
	}
	return string(b)
}
