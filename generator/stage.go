package generator

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Names rsgen owns in the output directory.
const (
	DocsDir       = "resourcesync"             // every document but the Source Description
	WellKnownDir  = ".well-known"              // RFC 8615
	WellKnownFile = ".well-known/resourcesync" // the Source Description (section 6.3.1)
	stagePrefix   = ".rsgen-stage-"
)

// A Stage is a directory beside the output in which a build writes
// everything it publishes; Publish moves it into place, Discard removes it.
// Nothing in the output changes until Publish.
type Stage struct {
	out     string // output directory
	dir     string // the staging directory, inside out
	created string // the topmost directory of out that the build created, "" if out existed
	files   []string

	createHook func(name string) error // a test seam: fails Create if it returns an error
}

// NewStage creates a staging directory inside out, creating out if needed,
// and removes stages left behind by builds that were killed.
func NewStage(out string) (*Stage, error) {
	created := ""
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		created = topMissing(out)
		if err := os.MkdirAll(out, 0o755); err != nil {
			removeCreated(out, created)
			return nil, fmt.Errorf("creating output directory %s: %w", out, unwrapPath(err))
		}
	} else if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, unwrapPath(err))
	}
	if err := checkDocsDir(out); err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, err)
	}
	removeDeadStages(out)
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	dir := filepath.Join(out, stagePrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		removeCreated(out, created)
		return nil, fmt.Errorf("output directory %s is not writable: %w", out, unwrapPath(err))
	}
	if err := os.MkdirAll(filepath.Join(dir, DocsDir), 0o755); err != nil {
		os.RemoveAll(dir)
		removeCreated(out, created)
		return nil, fmt.Errorf("output directory %s: %w", out, unwrapPath(err))
	}
	return &Stage{out: out, dir: dir, created: created}, nil
}

// checkDocsDir fails if out holds something other than a directory where
// the documents directory goes: a file or link of the user's, which the
// swap of Publish would otherwise take away.
func checkDocsDir(out string) error {
	info, err := os.Lstat(filepath.Join(out, DocsDir))
	if err != nil || info.IsDir() {
		return nil
	}
	return fmt.Errorf("%s is %s, not a directory; rsgen writes its documents there: move it away or choose another --out",
		DocsDir, typeName(info.Mode()))
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a file"
	}
	return "a " + m.Type().String() + " file"
}

// topMissing returns the topmost ancestor of dir (or dir itself) that does
// not exist: what MkdirAll(dir) creates.
func topMissing(dir string) string {
	dir = filepath.Clean(dir)
	top := dir
	for d := filepath.Dir(dir); d != top; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		top = d
	}
	return top
}

// removeCreated removes dir and its parents up to top, each only if it is
// empty: the directories a failed build created.
func removeCreated(dir, top string) {
	if top == "" {
		return
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == top || filepath.Dir(d) == d {
			return
		}
	}
}

// removeDeadStages removes staging directories of builds whose process is
// gone (killed with SIGKILL or by a power cut); those of running builds stay.
func removeDeadStages(out string) {
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, stagePrefix) {
			continue
		}
		pidStr, _, _ := strings.Cut(strings.TrimPrefix(name, stagePrefix), "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || !processAlive(pid) {
			os.RemoveAll(filepath.Join(out, name))
		}
	}
}

// Dir returns the staging directory: the root of what will be published.
func (s *Stage) Dir() string { return s.dir }

// Path returns where name (slash-separated, relative to the output) is staged.
func (s *Stage) Path(name string) string { return filepath.Join(s.dir, filepath.FromSlash(name)) }

// Create creates the staged file name, for writing and reading back (the
// Resource Dump reads what it wrote to digest it and to copy its manifests
// into packages). Close it and check the error.
func (s *Stage) Create(name string) (*os.File, error) {
	if s.createHook != nil {
		if err := s.createHook(name); err != nil {
			return nil, err
		}
	}
	p := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, name)
	return f, nil
}

// WriteFile stages a file with the given content.
func (s *Stage) WriteFile(name string, data []byte) error {
	f, err := s.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return closeAfter(f, err)
}

// Files returns the names of the staged files, in the order created.
func (s *Stage) Files() []string { return s.files }

// closeAfter closes c and returns err, or the error of Close if err is nil.
func closeAfter(c io.Closer, err error) error {
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// Discard removes the staging directory, and the output directory and
// its parents if the build created them. The output is as it was before
// the build.
func (s *Stage) Discard() {
	os.RemoveAll(s.dir)
	removeCreated(s.out, s.created)
}

// Publish moves the staged output into place: the documents directory is
// swapped with the published one in one atomic rename (where the system
// has one), then the files outside it are renamed over their old versions,
// and what the swap displaced is removed. A Destination reading during
// Publish sees either the old documents or the new ones, never a mix
// within the documents directory. If a step fails, what was done is
// undone: the output is as it was.
func (s *Stage) Publish() error {
	var rootFiles []string
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != DocsDir {
			if err := collectFiles(s.dir, e.Name(), &rootFiles); err != nil {
				return err
			}
		}
	}
	// Make the parents of files outside the documents directory first:
	// nothing after the swap should be able to fail for want of them.
	var made [][2]string // directories created: {dir, topmost created}
	undoDirs := func() {
		for i := len(made) - 1; i >= 0; i-- {
			removeCreated(made[i][0], made[i][1])
		}
	}
	for _, name := range rootFiles {
		parent := filepath.Dir(filepath.Join(s.out, name))
		if _, err := os.Stat(parent); err == nil {
			continue
		}
		made = append(made, [2]string{parent, topMissing(parent)})
		if err := os.MkdirAll(parent, 0o755); err != nil {
			undoDirs()
			return fmt.Errorf("creating %s: %w", filepath.Dir(name), unwrapPath(err))
		}
	}
	newDocs := filepath.Join(s.dir, DocsDir)
	oldDocs := filepath.Join(s.out, DocsDir)
	if err := checkDocsDir(s.out); err != nil {
		undoDirs()
		return err
	}
	swapped, err := exchange(newDocs, oldDocs)
	if err != nil {
		undoDirs()
		return fmt.Errorf("moving %s into place: %w", DocsDir, unwrapLink(err))
	}
	// The old version of each root file is kept as a hard link in the
	// stage until all are in place, to be put back if one fails.
	backup := filepath.Join(s.dir, ".old")
	hadOld := make([]bool, len(rootFiles))
	for i, name := range rootFiles {
		dst := filepath.Join(s.out, name)
		old := filepath.Join(backup, name)
		if os.MkdirAll(filepath.Dir(old), 0o755) == nil && os.Link(dst, old) == nil {
			hadOld[i] = true
		}
		if err := os.Rename(filepath.Join(s.dir, name), dst); err != nil {
			for j := i - 1; j >= 0; j-- {
				prev := filepath.Join(s.out, rootFiles[j])
				if hadOld[j] {
					os.Rename(filepath.Join(backup, rootFiles[j]), prev)
				} else {
					os.Remove(prev)
				}
			}
			if swapped {
				exchange(newDocs, oldDocs)
			} else {
				os.Rename(oldDocs, newDocs)
			}
			undoDirs()
			return fmt.Errorf("moving %s into place: %w", name, unwrapLink(err))
		}
	}
	// The new output is in place: failing to remove what it displaced is
	// not a failure of the build, and the next build removes it.
	os.RemoveAll(s.dir)
	return nil
}

// unwrapLink drops the two paths an *os.LinkError carries: the caller
// names the file once, by its name in the output.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}

// collectFiles appends the files under dir/name (relative names) to files.
func collectFiles(dir, name string, files *[]string) error {
	return filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		*files = append(*files, rel)
		return nil
	})
}
