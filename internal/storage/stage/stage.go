// Package stage is where a build writes what it publishes: a staging
// directory inside the output, locked against a second build, moved into
// place by [Stage.Publish] only when everything was written (synced,
// journaled, and finished or undone after a crash), and removed by
// [Stage.Discard] otherwise. It removes only what rsgen wrote: a
// documents directory holding other files is refused (ErrNotWritten). It
// writes, renames and removes only through internal/storage/confined, which
// follows no symbolic link in the output, and it acts on a stage left by a
// killed build only if its journal proves a publish wrote it (readJournal).
// docs/PUBLISHING.md states the guarantees.
package stage

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/text/display"
)

// Names rsgen owns in the output directory.
const (
	DocsDir       = "resourcesync"             // every document but the Source Description
	WellKnownDir  = ".well-known"              // RFC 8615
	WellKnownFile = ".well-known/resourcesync" // the Source Description (section 6.3.1)
	Prefix        = ".rsgen-stage-"            // the names of staging directories, which are never content
)

// Moved are the files a publish moves into place outside the documents
// directory (hosting.RootFiles, kept equal by a test of hostfiles, and the
// Source Description). A journal naming any other file is not acted on.
var Moved = []string{WellKnownFile, ".nojekyll", "_headers", "resourcesync.nginx.conf", ".htaccess", "resourcesync-s3.sh"}

// ErrBusy reports an output directory into which another build is
// publishing: two builds at once could publish an older snapshot over a
// newer one.
var ErrBusy = errors.New("another build is running into it; try again when it is done")

// A Stage is a directory beside the output in which a build writes
// everything it publishes. From New to Publish or Discard the build holds
// two locks, which the system releases when the process dies: one on the
// output directory (a second build gets ErrBusy), and one on the stage, by
// which a later build tells a stage left by a killed build from one in use.
type Stage struct {
	out     string
	root    *confined.Root // out: every change to it goes through root
	name    string         // the staging directory, in out
	dir     string         // its path
	notices []string
	created string // the topmost directory of out that the build created, "" if out existed
	files   []string
	at      time.Time // the snapshot staged

	outLock, stageLock *dirLock // nil once released

	CreateHook func(name string) error // test seam: an error fails Create
	StepHook   func(step string) error // test seam: called before each step of Publish; an error fails it
}

// New creates a staging directory inside out, creating out if needed.
// It fails with ErrBusy if another build holds out, and with ErrNotWritten
// if out's documents directory holds files rsgen did not write. It first
// deals with the stages of killed builds (recoverStages); a dry run only
// names them in the notices.
func New(out string, dry bool) (*Stage, error) {
	created := ""
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		created = topMissing(out)
		if err := confined.MkdirAll(out); err != nil {
			removeCreated(out, created)
			return nil, fmt.Errorf("creating output directory %s: %w", out, display.WithoutPath(err))
		}
	} else if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	s := &Stage{out: out, created: created}
	if err := s.open(dry); err != nil {
		if !errors.Is(err, ErrBusy) { // the other build may have created out too: leave it
			s.Discard()
		}
		return nil, err
	}
	return s, nil
}

func (s *Stage) open(dry bool) error {
	out := s.out
	wrap := func(err error) error {
		return fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	root, err := confined.Open(out)
	if err != nil {
		return wrap(err)
	}
	s.root = root
	lock, err := lockDir(out)
	if errors.Is(err, errLocked) {
		return fmt.Errorf("output directory %s: %w", out, ErrBusy)
	}
	if err != nil {
		return wrap(err)
	}
	s.outLock = lock
	s.notices = recoverStages(root, dry)
	if _, err := checkOwned(out); err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	name := Prefix + hex.EncodeToString(rnd[:])
	if err := root.Mkdir(name, 0o755); err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", out, display.WithoutPath(err))
	}
	s.name, s.dir = name, filepath.Join(out, name)
	if s.stageLock, err = lockDir(s.dir); err != nil {
		return wrap(err)
	}
	if err := root.Mkdir(name+"/"+DocsDir, 0o755); err != nil {
		return wrap(err)
	}
	return nil
}

// SetSnapshot records the time of the snapshot staged: Publish refuses to
// replace a newer one (ErrOlderSnapshot).
func (s *Stage) SetSnapshot(at time.Time) { s.at = at }

// Discard removes the staging directory, and the output directory and
// its parents if the build created them, and releases the locks.
func (s *Stage) Discard() {
	if s.name != "" && s.root != nil {
		s.root.RemoveAll(s.name)
	}
	removeCreated(s.out, s.created)
	s.release()
}

// Notices returns what New found that the user should know (recoverStages).
func (s *Stage) Notices() []string { return s.notices }

func (s *Stage) release() {
	if s.root != nil {
		s.root.Close()
		s.root = nil
	}
	if s.stageLock != nil {
		s.stageLock.unlock()
		s.stageLock = nil
	}
	if s.outLock != nil {
		s.outLock.unlock()
		s.outLock = nil
	}
}

// typeName says what kind of file m is, in words.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a file"
	}
	return "a " + m.Type().String() + " file"
}

// topMissing returns the topmost directory MkdirAll(dir) creates.
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

// removeCreated removes dir and its parents up to top, each only if empty.
func removeCreated(dir, top string) {
	if top == "" {
		return
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if confined.RemoveEmpty(d) != nil || d == top || filepath.Dir(d) == d {
			return
		}
	}
}

func (s *Stage) Dir() string { return s.dir }

func (s *Stage) Path(name string) string { return filepath.Join(s.dir, filepath.FromSlash(name)) }

// Create creates the staged file name, for writing and reading back.
func (s *Stage) Create(name string) (*os.File, error) {
	if s.CreateHook != nil {
		if err := s.CreateHook(name); err != nil {
			return nil, err
		}
	}
	f, err := s.root.Create(s.name + "/" + name)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, name)
	return f, nil
}

// CreateTemp creates a scratch file in the stage, which the caller
// removes, and returns it with its name in the stage.
func (s *Stage) CreateTemp(pattern string) (*os.File, string, error) {
	f, name, err := s.root.CreateTemp(s.name, pattern)
	return f, strings.TrimPrefix(name, s.name+"/"), err
}

// MkdirTemp makes a scratch directory in the stage, which the caller
// removes, and returns its path.
func (s *Stage) MkdirTemp(pattern string) (string, error) {
	name, err := s.root.MkdirTemp(s.name, pattern)
	if err != nil {
		return "", err
	}
	return s.root.Path(name), nil
}

func (s *Stage) Remove(name string) error {
	if err := s.root.Remove(s.name + "/" + name); err != nil {
		return err
	}
	s.files = slices.DeleteFunc(s.files, func(f string) bool { return f == name })
	return nil
}

func (s *Stage) RemoveAll(name string) error { return s.root.RemoveAll(s.name + "/" + name) }

func (s *Stage) Chtimes(name string, t time.Time) error {
	return s.root.Chtimes(s.name+"/"+name, t, t)
}

func (s *Stage) WriteFile(name string, data []byte) error {
	f, err := s.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return confined.CloseAfter(f, err)
}

// Files returns the names of the staged files, in the order created.
func (s *Stage) Files() []string { return s.files }
