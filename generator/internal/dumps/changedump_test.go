package dumps

import (
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/previous"
)

// A carried package keeps the names rsgen gave it and its manifest's
// copy; another is named as rsgen names a package that ends when it ends.
func TestCarriedNames(t *testing.T) {
	d := &docs.Writer{Base: "https://example.org/", Dir: "resourcesync"}
	until := time.Date(2024, 6, 3, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name                  string
		rel, manifest         string // "" for no manifest copy
		wantPkg, wantManifest string
	}{
		{"rsgen's", "resourcesync/changedump-20240602T000000Z-00004.zip", "resourcesync/changedump-20240602T000000Z-00004.manifest.xml",
			"changedump-20240602T000000Z-00004.zip", "changedump-20240602T000000Z-00004.manifest.xml"},
		{"another's", "resourcesync/dumps/part1.zip", "resourcesync/dumps/part1.xml",
			"changedump-20240603T000000Z-00002.zip", "changedump-20240603T000000Z-00002.manifest.xml"},
		{"without a manifest copy", "elsewhere/part1.zip", "", "changedump-20240603T000000Z-00002.zip", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &previous.Package{Rel: tt.rel}
			if tt.manifest != "" {
				p.Content = &previous.Document{Rel: tt.manifest}
			}
			pkg, manifest := carriedNames(d, p, until, 2)
			if pkg != tt.wantPkg || manifest != tt.wantManifest {
				t.Errorf("published as %s and %s, want %s and %s", pkg, manifest, tt.wantPkg, tt.wantManifest)
			}
		})
	}
}
