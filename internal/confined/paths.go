package confined

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
)

// The calls below take a path: for a file a command writes where its user
// named it (rsgen init's FILE), and for scratch files in directories rsgen
// made itself (MkdirTemp, mode 0700: under os.TempDir, a spill directory,
// its stage). The directory part of the path is opened as given, as the
// directory of a Root is; the last name is never followed.

// within opens the directory of path as a Root and returns it with the
// last name of path.
func within(path string) (*Root, string, error) {
	r, err := Open(filepath.Dir(path))
	if err != nil {
		return nil, "", err
	}
	return r, filepath.Base(path), nil
}

// CreateNew creates the file path, which must not exist, for reading and
// writing, with the permissions perm.
func CreateNew(path string, perm fs.FileMode) (*os.File, error) {
	r, name, err := within(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// CreateTemp creates a new file in dir (os.TempDir() if ""), named by
// pattern as Root.CreateTemp names, for reading and writing.
func CreateTemp(dir, pattern string) (*os.File, error) {
	r, err := Open(cmp.Or(dir, os.TempDir()))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, _, err := r.CreateTemp(".", pattern)
	return f, err
}

// MkdirTemp makes a new directory in dir (os.TempDir() if ""), mode 0700,
// named by pattern as Root.CreateTemp names, and returns its path.
func MkdirTemp(dir, pattern string) (string, error) {
	r, err := Open(cmp.Or(dir, os.TempDir()))
	if err != nil {
		return "", err
	}
	defer r.Close()
	name, err := r.MkdirTemp(".", pattern)
	if err != nil {
		return "", err
	}
	return r.Path(name), nil
}

// Mkdir makes the directory path.
func Mkdir(path string, perm fs.FileMode) error {
	r, name, err := within(path)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Mkdir(name, perm)
}

// Remove removes the file, link or empty directory path.
func Remove(path string) error {
	r, name, err := within(path)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Remove(name)
}

// RemoveAll removes path and everything under it, following no link; a
// path where nothing is, is no error.
func RemoveAll(path string) error {
	r, name, err := within(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	defer r.Close()
	return r.RemoveAll(name)
}
