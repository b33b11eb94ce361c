package packages

import (
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// A package's entry gives its URL in the set's directory, its type,
// length and digests, its interval, and the link to its manifest's copy;
// a package of unknown length gives none.
func TestPackageEntry(t *testing.T) {
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
}

// The names rsgen gives Change Dump packages, and only those, match.
func TestChangeDumpNames(t *testing.T) {
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
