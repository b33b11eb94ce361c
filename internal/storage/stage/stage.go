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

	outLock, stageLock *os.File // the locks (lockDir); nil once released

	CreateHook func(name string) error // test seam: an error fails Create
	StepHook   func(step string) error // test seam: called before each step of Publish; an error fails it
}

// New creates a staging directory inside out, creating out if needed.
// It fails with ErrBusy if another build holds out, and with ErrNotWritten
// if out's documents directory holds files rsgen did not write. It first
// deals with the stages of killed builds (recoverStages); a dry run only
// names them in the notices.
func New(out string, dry bool) (*Stage, error) {
	s := &Stage{out: out}
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		s.created = topMissing(out)
		if err := confined.MkdirAll(out); err != nil {
			s.Discard()
			return nil, fmt.Errorf("creating output directory %s: %w", out, display.WithoutPath(err))
		}
	} else if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	if err := s.open(dry); err != nil {
		if !errors.Is(err, ErrBusy) { // the other build may have created out too: leave it
			s.Discard()
		}
		return nil, err
	}
	return s, nil
}

func (s *Stage) open(dry bool) (err error) {
	out := s.out
	wrap := func(err error) error {
		return fmt.Errorf("output directory %s: %w", out, display.WithoutPath(err))
	}
	if s.root, err = confined.Open(out); err != nil {
		return wrap(err)
	}
	if s.outLock, err = lockDir(out); errors.Is(err, errLocked) {
		return fmt.Errorf("output directory %s: %w", out, ErrBusy)
	} else if err != nil {
		return wrap(err)
	}
	s.notices = recoverStages(s.root, dry)
	if _, err := checkOwned(out); err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	name := Prefix + hex.EncodeToString(rnd[:])
	if err := s.root.Mkdir(name, 0o755); err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", out, display.WithoutPath(err))
	}
	s.name, s.dir = name, filepath.Join(out, name)
	if s.stageLock, err = lockDir(s.dir); err != nil {
		return wrap(err)
	}
	if err := s.root.Mkdir(name+"/"+DocsDir, 0o755); err != nil {
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
	for d := filepath.Clean(s.out); s.created != ""; d = filepath.Dir(d) { // each only if empty
		if confined.RemoveEmpty(d) != nil || d == s.created || filepath.Dir(d) == d {
			break
		}
	}
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
		unlock(s.stageLock)
		s.stageLock = nil
	}
	if s.outLock != nil {
		unlock(s.outLock)
		s.outLock = nil
	}
}

// topMissing returns the topmost directory MkdirAll(dir) creates.
func topMissing(dir string) string {
	top := filepath.Clean(dir)
	for d := filepath.Dir(top); d != top; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		top = d
	}
	return top
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
	if err == nil {
		s.files = append(s.files, name)
	}
	return f, err
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

// Link stages name as a hard link to the open regular file f, outside the
// stage (a package published before): to the very file the caller checked,
// whatever its name leads to by now. It reports false, having staged
// nothing, where the system cannot link it: the caller copies from f then.
func (s *Stage) Link(name string, f *os.File) (linked bool, err error) {
	err = s.root.Link(f, s.name+"/"+name)
	if errors.Is(err, errors.ErrUnsupported) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.files = append(s.files, name)
	return true, nil
}

// LinkStaged stages name as a hard link to the staged file staged, or a
// copy of it where the file system has no links.
func (s *Stage) LinkStaged(name, staged string) error {
	src, dst := s.name+"/"+staged, s.name+"/"+name
	if err := s.root.LinkAt(src, s.root, dst); err != nil {
		if err := copyFile(s.root, src, dst); err != nil {
			return err
		}
	}
	s.files = append(s.files, name)
	return nil
}
