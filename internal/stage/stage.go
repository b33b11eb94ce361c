// Package stage is where a build writes what it publishes: a staging
// directory inside the output, locked against a second build, moved into
// place by [Stage.Publish] only when everything was written (synced,
// journaled, and finished or undone after a crash), and removed by
// [Stage.Discard] otherwise. It removes only what rsgen wrote: a
// documents directory holding other files is refused (ErrNotWritten).
// docs/PUBLISHING.md states the guarantees.
package stage

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rsgen/rsgen/internal/display"
)

// Names rsgen owns in the output directory.
const (
	DocsDir       = "resourcesync"             // every document but the Source Description
	WellKnownDir  = ".well-known"              // RFC 8615
	WellKnownFile = ".well-known/resourcesync" // the Source Description (section 6.3.1)
	Prefix        = ".rsgen-stage-"            // the names of staging directories, which are never content
)

// ErrBusy reports an output directory into which another build is
// publishing: two builds at once could publish an older snapshot over a
// newer one.
var ErrBusy = errors.New("another build is running into it; try again when it is done")

// A Stage is a directory beside the output in which a build writes
// everything it publishes; Publish moves it into place, Discard removes it.
// Nothing in the output changes until Publish.
//
// From New to Publish or Discard the build holds two locks: one on
// the output directory, which a second build finds taken (ErrBusy), and
// one on the stage, by which a later build tells a stage left by a killed
// build (stale: nobody holds it) from one in use. Both are released by the
// system when the process dies.
type Stage struct {
	out     string // output directory
	dir     string // the staging directory, inside out
	created string // the topmost directory of out that the build created, "" if out existed
	files   []string
	at      time.Time // the snapshot staged: Publish refuses to replace a newer one

	outLock, stageLock *dirLock // nil once released

	CreateHook func(name string) error // a test seam: fails Create if it returns an error
	StepHook   func(step string) error // a test seam: called before each step of Publish; its error fails the step
}

// New creates a staging directory inside out, creating out if needed.
// It fails with ErrBusy if another build holds out, and with ErrNotWritten
// if out's documents directory holds files rsgen did not write. It first
// finishes or undoes the publish of a build killed while publishing, and
// removes stages left by killed builds.
func New(out string) (*Stage, error) {
	created := ""
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		created = topMissing(out)
		if err := os.MkdirAll(out, 0o755); err != nil {
			removeCreated(out, created)
			return nil, fmt.Errorf("creating output directory %s: %w", out, display.WithoutPath(err))
		}
	} else if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	s := &Stage{out: out, created: created}
	lock, err := lockDir(out)
	if errors.Is(err, errLocked) {
		// The other build may have created out too: leave it.
		return nil, fmt.Errorf("output directory %s: %w", out, ErrBusy)
	}
	if err != nil {
		s.Discard()
		return nil, fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	s.outLock = lock
	recoverStages(out)
	if _, err := checkOwned(out); err != nil {
		s.Discard()
		return nil, fmt.Errorf("output directory %s: %w", out, err)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		s.Discard()
		return nil, err
	}
	dir := filepath.Join(out, Prefix+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		s.Discard()
		return nil, fmt.Errorf("output directory %s is not writable: %w", out, display.WithoutPath(err))
	}
	s.dir = dir
	if s.stageLock, err = lockDir(dir); err != nil {
		s.Discard()
		return nil, fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	if err := os.MkdirAll(filepath.Join(dir, DocsDir), 0o755); err != nil {
		s.Discard()
		return nil, fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	return s, nil
}

// SetSnapshot records the time of the snapshot staged: Publish refuses to
// replace a published snapshot that is newer (ErrOlderSnapshot). It checks
// only then, so that a build against a previous one (across.go) says first
// what is wrong with that one.
func (s *Stage) SetSnapshot(at time.Time) { s.at = at }

// Discard removes the staging directory, and the output directory and
// its parents if the build created them, and releases the locks. The
// output is as it was before the build.
func (s *Stage) Discard() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
	removeCreated(s.out, s.created)
	s.release()
}

// release releases the locks, if held.
func (s *Stage) release() {
	if s.stageLock != nil {
		s.stageLock.unlock()
		s.stageLock = nil
	}
	if s.outLock != nil {
		s.outLock.unlock()
		s.outLock = nil
	}
}

// TypeName says what kind of file m is, in words: "a file", "a symbolic
// link", "a d--------- file".
func TypeName(m fs.FileMode) string {
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

// Dir returns the staging directory: the root of what will be published.
func (s *Stage) Dir() string { return s.dir }

// Path returns where name (slash-separated, relative to the output) is staged.
func (s *Stage) Path(name string) string { return filepath.Join(s.dir, filepath.FromSlash(name)) }

// Create creates the staged file name, for writing and reading back (the
// Resource Dump reads what it wrote to digest it and to copy its manifests
// into packages). Close it and check the error.
func (s *Stage) Create(name string) (*os.File, error) {
	if s.CreateHook != nil {
		if err := s.CreateHook(name); err != nil {
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

// Remove removes the staged file name, which is then no longer one of
// Files (a dump's package that ended up empty, a file of work).
func (s *Stage) Remove(name string) error {
	if err := os.Remove(s.Path(name)); err != nil {
		return err
	}
	s.files = slices.DeleteFunc(s.files, func(f string) bool { return f == name })
	return nil
}

// closeAfter closes c and returns err, or the error of Close if err is nil.
func closeAfter(c io.Closer, err error) error {
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}
