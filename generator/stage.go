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
	created bool   // out did not exist before the build
	files   []string
}

// NewStage creates a staging directory inside out, creating out if needed,
// and removes stages left behind by builds that were killed.
func NewStage(out string) (*Stage, error) {
	created := false
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, fmt.Errorf("creating output directory: %w", err)
		}
		created = true
	} else if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	removeDeadStages(out)
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	dir := filepath.Join(out, stagePrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		if created {
			os.Remove(out)
		}
		return nil, fmt.Errorf("output directory is not writable: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, DocsDir), 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Stage{out: out, dir: dir, created: created}, nil
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

// Discard removes the staging directory, and the output directory if the
// build created it. The output is as it was before the build.
func (s *Stage) Discard() {
	os.RemoveAll(s.dir)
	if s.created {
		os.Remove(s.out) // only if still empty
	}
}

// Publish moves the staged output into place: the documents directory is
// swapped with the published one in one atomic rename (where the system
// has one), then the files outside it are renamed over their old versions,
// and what the swap displaced is removed. A Destination reading during
// Publish sees either the old documents or the new ones, never a mix
// within the documents directory.
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
	for _, name := range rootFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.out, name)), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(name), err)
		}
	}
	newDocs := filepath.Join(s.dir, DocsDir)
	oldDocs := filepath.Join(s.out, DocsDir)
	swapped, err := exchange(newDocs, oldDocs)
	if err != nil {
		return fmt.Errorf("moving %s into place: %w", DocsDir, err)
	}
	for i, name := range rootFiles {
		if err := os.Rename(filepath.Join(s.dir, name), filepath.Join(s.out, name)); err != nil {
			// Put the old documents back; files already renamed stay new,
			// and they are consistent with either set of documents.
			if swapped {
				exchange(newDocs, oldDocs)
			}
			return fmt.Errorf("moving %s into place (after %d of %d files): %w", name, i, len(rootFiles), err)
		}
	}
	return os.RemoveAll(s.dir)
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
