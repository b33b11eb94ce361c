package exports

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// A sorted record decodes to the Resource it was made of, and its keys
// give back the loc, path, time and line.
func TestItemRoundTrip(t *testing.T) {
	t.Parallel()
	mod := time.Date(2024, 5, 3, 10, 0, 0, 500, time.UTC)
	for _, tc := range []struct {
		name   string
		r      spill.Resource
		change byte
	}{
		{"bare", spill.Resource{Length: -1}, 0},
		{"full", spill.Resource{Length: 42, Modified: mod, Hash: []hashing.Token{{Alg: "sha-256", Digest: []byte{0xab}}, {Alg: "x-y", Digest: []byte{1}}}, Type: "text/plain", Path: "files/a.txt",
			Links: []rsxml.Link{{Rel: "alternate", Href: "https://example.org/a.html", Type: "text/html", Pri: "2", Profile: "https://example.org/p"}}}, itemUpdated},
		{"deleted", spill.Resource{Length: -1, Modified: mod}, itemDeleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payload := appendItem(nil, &tc.r, tc.change, false)
			got := spill.Resource{Loc: tc.r.Loc} // from the key
			change, err := decodeItem(payload, &got)
			if err != nil || change != tc.change || !reflect.DeepEqual(got, tc.r) {
				t.Errorf("decoded %+v, change %q, error %v; want %+v, change %q", got, change, err, tc.r, tc.change)
			}
			if n := itemLength(payload); n != tc.r.Length {
				t.Errorf("itemLength %d, want %d", n, tc.r.Length)
			}
			if _, err := decodeItem(payload[:len(payload)-1], &got); len(payload) > 3 && err == nil {
				t.Error("a truncated payload decodes")
			}
		})
	}
	loc, line := splitKey(appendKey(nil, "https://example.org/a", 7))
	if string(loc) != "https://example.org/a" || line != 7 {
		t.Errorf("loc key gives %q, %d", loc, line)
	}
	before := appendChangeKey(nil, time.Unix(-5, 0), "https://example.org/b", 1)
	after := appendChangeKey(nil, mod.Truncate(time.Second), "https://example.org/a", 2)
	if bytes.Compare(before, after) >= 0 {
		t.Error("change keys not in chronological order across 1970")
	}
	if at, loc := splitChangeKey(after); !at.Equal(mod.Truncate(time.Second)) || string(loc) != "https://example.org/a" || lineOf(after) != 2 {
		t.Errorf("change key gives %v, %q, %d", at, loc, lineOf(after))
	}
}
