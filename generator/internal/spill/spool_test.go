package spill

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// A resource reads back from the spool as it was added, whatever its
// fields hold, and the paths and URLs stored as shared prefixes come back
// whole.
func TestResourceSpoolRoundTrip(t *testing.T) {
	t.Parallel()
	stg, err := stage.New(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer stg.Discard()
	a := &Area{Stage: stg}
	defer a.Remove()
	s, err := a.Resources()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 5000)
	want := []Resource{
		{Path: "a", Loc: "https://example.org/a", Length: 0, Hash: []hashing.Token{{Alg: "sha-256", Digest: []byte{0}}}, Type: "text/plain"},
		{Path: "a/" + long, Loc: "https://example.org/a/" + long, Length: -1, Modified: time.Date(2024, 6, 1, 1, 2, 3, 456789, time.UTC)},
		{Path: "a/" + long + "y", Loc: "https://other.example/", Length: 1 << 40, Kept: true,
			Links: []rsxml.Link{{Rel: "alternate", Href: "https://example.org/x", Type: "text/html"}, {Rel: "describedby", Href: ""}}},
		{Path: "b", Loc: "", Modified: time.Unix(0, 0).UTC(), Hash: []hashing.Token{{Alg: "md5", Digest: []byte{0xab}}, {Alg: "x-other", Digest: []byte{0xcd, 0}}}, Type: "application/octet-stream"},
		{Path: "b\n\x00é", Loc: "https://example.org/b%0A%00%C3%A9"},
	}
	for i := range want {
		if err := s.Add(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(&Resource{Path: "a"}); !errors.Is(err, errResourceOrder) {
		t.Errorf("a path out of order: %v", err)
	}
	s.Patch(3, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	want[3].Modified = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for pass := range 2 {
		var got []Resource
		if err := s.Each(func(r *Resource) error { got = append(got, r.Clone()); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pass %d: read back\n%+v\nwant\n%+v", pass, got, want)
		}
	}
	if s.Len() != len(want) || s.Bytes != 1<<40 {
		t.Errorf("len %d, bytes %d", s.Len(), s.Bytes)
	}
}
