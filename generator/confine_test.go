package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestPlantedJournal: SOURCE is the output, and a commit to it planted a
// stage with a journal of a "publish killed" that names files behind a
// link leading out of the output, and the site's own index.html. The
// build never acts on that journal: the files elsewhere and the site's
// are as they were, and a notice names the stage.
func TestPlantedJournal(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	elsewhere := t.TempDir()
	testenv.WriteFile(t, elsewhere, "important.txt", "precious")
	testenv.WriteFile(t, elsewhere, "authorized_keys", "the owner's key")
	testenv.WriteFile(t, src, "index.html", "the site")
	if err := os.Symlink(elsewhere, filepath.Join(src, "evil")); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, src, ".rsgen-stage-x/.publishing",
		`{"docs":"0:0","root":["evil/important.txt","evil/authorized_keys","index.html"],"old":["evil/authorized_keys"],"made":[]}`)
	testenv.WriteFile(t, src, ".rsgen-stage-x/.old/evil/authorized_keys", "the attacker's key")
	before := testenv.ReadTree(t, elsewhere)
	cfg := testConfig(t, src, src)
	var notices []string
	cfg.Notice = func(m string) { notices = append(notices, m) }
	mustBuild(t, cfg)
	sameFiles(t, "the directory the link leads to", testenv.ReadTree(t, elsewhere), before)
	if b, err := os.ReadFile(filepath.Join(src, "index.html")); string(b) != "the site" {
		t.Errorf("index.html: %q, %v", b, err)
	}
	found := false
	for _, n := range notices {
		found = found || strings.Contains(n, ".rsgen-stage-x") && strings.Contains(n, "left alone")
	}
	if !found {
		t.Errorf("notices %q, want one naming the stage left alone", notices)
	}
}

// TestWellKnownSymlink: a .well-known in the output that is a symbolic
// link is refused, as a linked resourcesync/ is: the Source Description is
// never written through it.
func TestWellKnownSymlink(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	out, outside := t.TempDir(), t.TempDir()
	testenv.WriteFile(t, outside, "resourcesync", "theirs")
	if err := os.Symlink(outside, filepath.Join(out, wellKnownDir)); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), testConfig(t, src, out))
	if kindOf(err) != KindOutput || !strings.Contains(err.Error(), ".well-known is a symbolic link") {
		t.Errorf("error %v, want one naming .well-known, a symbolic link", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "resourcesync")); string(b) != "theirs" {
		t.Errorf("written through the link: %q", b)
	}
}
