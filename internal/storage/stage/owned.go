package stage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/text/display"
)

// ManifestName is the file in the documents directory that lists what
// rsgen wrote there; swapped in with the documents, it always describes
// the folder it is in.
const ManifestName = ".rsgen-manifest.json"

// ErrNotWritten reports files in the output's documents directory that
// rsgen did not write: it replaces that directory at every build, and
// removes only what it wrote.
var ErrNotWritten = errors.New("not written by rsgen, which removes only what it wrote")

// ErrOlderSnapshot reports a build whose snapshot is older than the one
// published: a Destination would see changes undone.
var ErrOlderSnapshot = errors.New("the snapshot is older than the one published")

type manifest struct {
	Generator string    `json:"generator"` // "rsgen"
	At        time.Time `json:"at"`        // the snapshot
	Files     []string  `json:"files"`     // slash-separated, but the manifest
}

// writeManifest records the files of the documents directory name; the
// same snapshot gives the same bytes.
func writeManifest(root *confined.Root, name string, at time.Time) error {
	m := manifest{Generator: "rsgen", At: at.UTC(), Files: []string{}}
	if err := collectFiles(root.Path(name), ".", &m.Files); err != nil {
		return err
	}
	slices.Sort(m.Files)
	data, err := json.MarshalIndent(m, "", "\t")
	if err != nil {
		return err
	}
	return root.WriteFile(name+"/"+ManifestName, append(data, '\n'))
}

// readManifest reads the manifest of the documents directory docs; the
// error wraps fs.ErrNotExist if it has none.
func readManifest(docs string) (*manifest, error) {
	data, err := readOwn(docs, ManifestName)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Generator != "rsgen" {
		return nil, fmt.Errorf("%s is not rsgen's manifest", ManifestName)
	}
	return &m, nil
}

// readOwn reads the regular file name of the documents directory docs, not
// through a link (what it leads to is not rsgen's), of at most 256 MiB (a
// manifest of a million documents is a few tens of MB).
func readOwn(docs, name string) ([]byte, error) {
	root, err := confined.Open(filepath.Dir(docs))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(filepath.Base(docs)+"/"+name, 256<<20)
}

// PublishedAt returns the snapshot time in the manifest of docs.
func PublishedAt(docs string) (time.Time, error) {
	m, err := readManifest(docs)
	if err != nil {
		return time.Time{}, err
	}
	return m.At, nil
}

// Check runs the checks of Publish that change nothing in the output, so
// that a dry run fails where Publish would: the documents directory holds
// only what rsgen wrote, and no snapshot newer than the one staged.
func (s *Stage) Check() error {
	published, err := checkOwned(s.out)
	if err != nil || published == nil || !s.at.Before(published.At) {
		return err
	}
	return fmt.Errorf("%w: this build's is %s, the published one %s", ErrOlderSnapshot,
		rsxml.FormatTime(s.at), rsxml.FormatTime(published.At))
}

// legacyName matches the names rsgen wrote in its documents directory
// before it kept a manifest.
var legacyName = regexp.MustCompile(`^((resourcelist|resourcedump|changelist|changedump|capabilitylist)(-[0-9A-Za-z_.-]+)?\.(xml|zip)|index\.html|robots\.txt|head\.html)$`)

// checkOwned fails if the documents directory of out holds anything rsgen
// did not write: a name its manifest does not list or, without a manifest,
// a name rsgen's layout does not produce, or no Capability List of rsgen's.
// It returns the manifest, nil if none.
func checkOwned(out string) (*manifest, error) {
	if info, err := os.Lstat(filepath.Join(out, WellKnownDir)); err == nil && !info.IsDir() {
		return nil, notADirectory(WellKnownDir, info)
	}
	docs := filepath.Join(out, DocsDir)
	info, err := os.Lstat(docs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, notADirectory(DocsDir, info)
	}
	m, err := readManifest(docs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		m = nil // unreadable: judged as a directory without one
	}
	listed := map[string]bool{}
	if m != nil {
		for _, f := range m.Files {
			listed[f] = true
		}
	}
	var foreign, all []string
	err = filepath.WalkDir(docs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(docs, p)
		rel = filepath.ToSlash(rel)
		name := display.Name(path.Join(DocsDir, rel))
		all = append(all, name)
		switch {
		case rel == ManifestName && m != nil:
		case m != nil && listed[rel] && d.Type().IsRegular():
		case m == nil && legacyName.MatchString(rel) && d.Type().IsRegular():
		default:
			foreign = append(foreign, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	why := ""
	if len(foreign) == 0 && m == nil && len(all) > 0 && !legacyCapabilityList(docs) {
		// Names alone do not tell a user's index.html from rsgen's.
		foreign, why = all, " (no Capability List of rsgen's beside them)"
	}
	if len(foreign) > 0 {
		more := ""
		if len(foreign) > 3 {
			more = fmt.Sprintf(" and %d more", len(foreign)-3)
			foreign = foreign[:3]
		}
		return nil, fmt.Errorf("%s%s%s: %w", strings.Join(foreign, ", "), more, why, ErrNotWritten)
	}
	return m, nil
}

func notADirectory(dir string, info fs.FileInfo) error {
	what := "its documents"
	if dir == WellKnownDir {
		what = "the Source Description"
	}
	kind := "a " + info.Mode().Type().String() + " file"
	switch m := info.Mode(); {
	case m&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	case m.IsRegular():
		kind = "a file"
	}
	return fmt.Errorf("%s is %s, not a directory; rsgen writes %s there, and never through a link: move it away or choose another output directory",
		dir, kind, what)
}

func legacyCapabilityList(docs string) bool {
	data, err := readOwn(docs, "capabilitylist.xml")
	return err == nil && bytes.Contains(data, []byte(`capability="capabilitylist"`))
}
