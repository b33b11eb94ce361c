package confined

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
)

// The calls below take a path: a file the user named (rsgen init's FILE)
// or scratch files in directories rsgen made itself. The directory of the
// path is opened as given; the last name is never followed.

// within calls fn with the directory of path as a Root and its last name.
func within(path string, fn func(r *Root, name string) error) error {
	r, err := Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r, filepath.Base(path))
}

// CreateNew creates the file path, which must not exist, for reading and
// writing, with the permissions perm.
func CreateNew(path string, perm fs.FileMode) (f *os.File, err error) {
	err = within(path, func(r *Root, name string) (err error) {
		f, err = r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		return err
	})
	return f, err
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
	return within(path, func(r *Root, name string) error { return r.Mkdir(name, perm) })
}

// Remove removes the file, link or empty directory path.
func Remove(path string) error { return within(path, (*Root).Remove) }

// RemoveAll removes path and everything under it, following no link; a
// path where nothing is, is no error.
func RemoveAll(path string) error {
	err := within(path, (*Root).RemoveAll)
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
