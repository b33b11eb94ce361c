package packages

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// A package's entry gives its URL in the set's directory, its type,
// length and digests, its interval, and the link to its manifest's copy;
// a package of unknown length gives none.
func TestPackageEntry(t *testing.T) {
	t.Parallel()
	d := &docs.Writer{Base: "https://example.org/", Dir: "resourcesync/articles"}
	p := Package{Name: "changedump-20240602T000000Z-00001.zip", Manifest: "changedump-20240602T000000Z-00001.manifest.xml",
		From: "2024-06-01T00:00:00Z", Until: "2024-06-02T00:00:00Z", Length: 1234, Hash: "sha-256:00"}
	var e rsxml.Entry
	p.Entry(d, &e)
	if e.Loc != "https://example.org/resourcesync/articles/changedump-20240602T000000Z-00001.zip" ||
		e.MD.Type != "application/zip" || e.MD.Length != "1234" || e.MD.Hash != "sha-256:00" ||
		e.MD.From != p.From || e.MD.Until != p.Until ||
		e.Link("contents") != "https://example.org/resourcesync/articles/changedump-20240602T000000Z-00001.manifest.xml" {
		t.Errorf("entry %+v", e)
	}
	p.Length, p.Manifest = -1, ""
	p.Entry(d, &e)
	if e.MD.Length != "" || len(e.Links) != 0 {
		t.Errorf("a package of unknown length and no manifest copy: %+v", e)
	}
	// A Resource Dump's package gives its at and completed instead.
	r := Package{Name: "resourcedump-00001.zip", Length: 3, At: "2024-06-02T00:00:00Z", Completed: "2024-06-02T00:01:00Z"}
	r.Entry(d, &e)
	if e.MD.At != r.At || e.MD.Completed != r.Completed || e.MD.From != "" || e.MD.Until != "" {
		t.Errorf("a Resource Dump's package: %+v", e)
	}
}

// The names rsgen gives Change Dump packages, and only those, match.
func TestChangeDumpNames(t *testing.T) {
	t.Parallel()
	name := ChangeDumpStem + docs.Stamp(time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)) + "-00001"
	if !ChangeDumpFile.MatchString(name+".zip") || !ChangeManifestFile.MatchString(name+".manifest.xml") {
		t.Errorf("%s: the names rsgen gives do not match", name)
	}
	for _, bad := range []string{"changedump-20240602T000000Z.zip", "../changedump-20240602T000000Z-00001.zip", "changedump-20240602T000000Z-00001.zip.xml"} {
		if ChangeDumpFile.MatchString(bad) || ChangeManifestFile.MatchString(bad) {
			t.Errorf("%s matches", bad)
		}
	}
}

// A package's bytes are checked against the digests of its entry that
// rsgen computes, read from the file's start; an entry without one is
// unverifiable.
func TestCheckDigests(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "p.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("zip")
	sum := sha256.Sum256([]byte("zip"))
	other := sha256.Sum256([]byte("zap"))
	for _, tt := range []struct {
		name   string
		tokens []hashing.Token
		want   error // nil, errDigest or errUnverifiable
	}{
		{"its digest", []hashing.Token{{Alg: "sha-256", Digest: sum[:]}}, nil},
		{"another algorithm's too", []hashing.Token{{Alg: "x-foo", Digest: []byte{1}}, {Alg: "sha-256", Digest: sum[:]}}, nil},
		{"another digest", []hashing.Token{{Alg: "sha-256", Digest: other[:]}}, errDigest},
		{"no digest rsgen computes", []hashing.Token{{Alg: "x-foo", Digest: []byte{1}}}, errUnverifiable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkDigests(f, tt.tokens); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("checkDigests: %v, want %v", err, tt.want)
			}
		})
	}
}

// A copied package gets the time its entry gives: when its packaging
// completed, else the end of its changes, else its snapshot.
func TestPackageTime(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		md   rsxml.MD
		want string
	}{
		{rsxml.MD{At: "2024-06-01T00:00:00Z", Completed: "2024-06-01T00:05:00Z"}, "2024-06-01T00:05:00Z"},
		{rsxml.MD{From: "2024-06-01T00:00:00Z", Until: "2024-06-02T00:00:00Z"}, "2024-06-02T00:00:00Z"},
		{rsxml.MD{At: "2024-06-01T00:00:00Z", Completed: "soon"}, "2024-06-01T00:00:00Z"},
		{rsxml.MD{}, ""},
	} {
		got, ok := packageTime(&tt.md)
		if ok != (tt.want != "") || ok && rsxml.FormatTime(got) != tt.want {
			t.Errorf("%+v: %v, %v; want %q", tt.md, got, ok, tt.want)
		}
	}
}
