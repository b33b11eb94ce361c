package confined

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A Replacement is the new version of a file a user named (a hash cache,
// a state file), written into a temporary file beside it and renamed over
// it by Commit: a reader sees the old file or the new one, never a mix.
type Replacement struct {
	File   *os.File // the temporary file, to write
	Target string   // the file replaced: the path named, its links resolved
	root   *Root    // Target's directory
	tmp    string   // the temporary file's name in root
	done   bool
}

// ErrDanglingLink reports a path named that is a symbolic link to nothing:
// rsgen does not create a file wherever a link points.
var ErrDanglingLink = errors.New("a symbolic link to a file that does not exist")

// Replace starts the replacement of the file at path, or of the one a
// link there leads to (Target, which the caller checks before Commit). The
// temporary file is named by pattern (see CreateTemp) beside Target.
func Replace(path, pattern string) (*Replacement, error) {
	target, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	root, err := Open(filepath.Dir(target))
	if err != nil {
		return nil, err
	}
	f, tmp, err := root.CreateTemp(".", pattern)
	if err != nil {
		root.Close()
		return nil, err
	}
	return &Replacement{File: f, Target: target, root: root, tmp: tmp}, nil
}

// Resolve returns path with its links resolved, or path if nothing is
// there; a link to nothing fails with ErrDanglingLink.
func Resolve(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is %w", path, ErrDanglingLink)
	}
	return target, err
}

// Commit syncs and closes the temporary file and renames it over Target.
func (r *Replacement) Commit() error {
	err := CloseAfter(r.File, r.File.Sync())
	if err == nil {
		err = r.root.Rename(r.tmp, r.root, filepath.Base(r.Target))
	}
	if err != nil {
		r.Abort()
		return err
	}
	r.done = true
	r.root.Close()
	return SyncDir(filepath.Dir(r.Target))
}

// Abort removes the temporary file; after Commit it does nothing.
func (r *Replacement) Abort() {
	if r.done {
		return
	}
	r.done = true
	r.File.Close()
	r.root.Remove(r.tmp)
	r.root.Close()
}
