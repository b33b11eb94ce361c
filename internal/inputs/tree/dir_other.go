//go:build !unix

package tree

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rsgen/rsgen/hashing"
)

// dirSys outside unix is the directory's path: it is opened by name, and a
// directory replaced while the walk runs is not noticed.
type dirSys struct{ path string }

func (s *dirSys) open(d *Dir, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &fs.PathError{Op: "open", Path: path, Err: syscall.ENOTDIR}
	}
	s.path = path
	d.id = DirID{path: path}
	return nil
}

func (s *dirSys) openAt(parent, d *Dir, name string) error {
	path := filepath.Join(parent.sys.path, name)
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return syscall.ENOTDIR
	}
	s.path = path
	d.id = DirID{path: path}
	return nil
}

func (s *dirSys) close() {}

// Fd returns -1: outside unix a Dir has no descriptor, and its files are
// opened by their paths (Path).
func (d *Dir) Fd() int { return -1 }

// List starts listing d a batch at a time, in the order the file system
// gives, for a directory too large to list at once.
func (d *Dir) List() (*os.File, error) { return os.Open(d.sys.path) }

// Lstat returns the FileInfo of name in d, not following a symbolic link.
func (d *Dir) Lstat(name string) (hashing.FileInfo, error) {
	st, err := os.Lstat(filepath.Join(d.sys.path, name))
	if err != nil {
		return hashing.FileInfo{}, err
	}
	return hashing.FileInfo{Size: st.Size(), ModTime: st.ModTime(), Mode: st.Mode().Type()}, nil
}

// Readlink returns the target of the symbolic link name in d.
func (d *Dir) Readlink(name string) (string, error) {
	return os.Readlink(filepath.Join(d.sys.path, name))
}
