package release_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rsgenPin is a pinned rsgen in a document: go install …@V, the Action
// rsgen/rsgen@V, the image ghcr.io/rsgen/rsgen:V.
var rsgenPin = regexp.MustCompile(`(?:github\.com/rsgen/rsgen/cmd/rsgen@|uses: rsgen/rsgen@|ghcr\.io/rsgen/rsgen:)([^\s"'` + "`" + `)]+)`)

// newestRelease is the version of the first "## vX.Y.Z" section of
// CHANGELOG.md.
func newestRelease(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (v\d+\.\d+\.\d+)$`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("CHANGELOG.md has no section ## vX.Y.Z")
	}
	return m[1]
}

// userDocs are the files a user copies from: README.md, docs/, action.yml.
func userDocs(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	read := func(p string) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		docs[filepath.ToSlash(rel)] = string(data)
	}
	read(filepath.Join(root, "README.md"))
	read(filepath.Join(root, "action.yml"))
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			read(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestRecipesArePinned checks that what a user copies installs a pinned
// rsgen, the newest release of CHANGELOG.md: no @latest anywhere in
// README.md or docs/, every rsgen pinned at that version, and every CI
// recipe of docs/ci pinning one.
func TestRecipesArePinned(t *testing.T) {
	want := newestRelease(t)
	for name, text := range userDocs(t) {
		if strings.Contains(text, "@latest") {
			t.Errorf("%s: @latest: pin a version (%s)", name, want)
		}
		for _, m := range rsgenPin.FindAllStringSubmatch(text, -1) {
			if m[1] != want {
				t.Errorf("%s: %s, want the newest release of CHANGELOG.md, %s", name, m[0], want)
			}
		}
		if strings.HasPrefix(name, "docs/ci/") && !rsgenPin.MatchString(text) {
			t.Errorf("%s installs no pinned rsgen", name)
		}
	}
}

// TestGoReleaserPinned checks that every place that installs GoReleaser
// installs the same version, this test's.
func TestGoReleaserPinned(t *testing.T) {
	pin := regexp.MustCompile(`github\.com/goreleaser/goreleaser/v2@[^\s"']+`)
	for _, name := range []string{".ci/run", ".github/workflows/release.yml", ".goreleaser.yaml", "docs/INSTALL.md"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		found := pin.FindAllString(string(data), -1)
		if len(found) == 0 {
			t.Errorf("%s does not install GoReleaser", name)
		}
		for _, f := range found {
			if f != goreleaserVersion {
				t.Errorf("%s installs %s, want %s", name, f, goreleaserVersion)
			}
		}
	}
}
