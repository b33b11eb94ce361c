//go:build !unix

package confined

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A Root is a directory opened once: see the package documentation. Here
// it is an os.Root, which refuses names leading outside it. The methods do
// what those of confined_unix.go say.
type Root struct {
	r    *os.Root
	name string
}

func Open(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{r: r, name: dir}, nil
}

func (r *Root) Close() error { return r.r.Close() }

// SyncDir does nothing: directories cannot be opened for syncing here.
func SyncDir(string) error { return nil }

// TryLock reports false: without flock(2) a file in use cannot be told
// from one a killed process left, and is taken to be in use.
func TryLock(*os.File) (bool, error) { return false, nil }

func Unlock(*os.File) {}

func (r *Root) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return r.r.OpenFile(filepath.FromSlash(name), flag, perm)
}

func (r *Root) Mkdir(name string, perm fs.FileMode) error {
	return r.r.Mkdir(filepath.FromSlash(name), perm)
}

func (r *Root) MkdirAll(name string, perm fs.FileMode) error {
	if parts, _ := split(name); len(parts) == 0 {
		return nil
	}
	return r.r.MkdirAll(filepath.FromSlash(name), perm)
}

func (r *Root) Remove(name string) error { return r.r.Remove(filepath.FromSlash(name)) }

func (r *Root) RemoveDir(name string) error {
	if st, err := r.r.Lstat(filepath.FromSlash(name)); err != nil || !st.IsDir() {
		return &fs.PathError{Op: "remove", Path: r.Path(name), Err: errors.New("not a directory")}
	}
	return r.Remove(name)
}

func (r *Root) RemoveAll(name string) error {
	if parts, _ := split(name); len(parts) == 0 {
		return &fs.PathError{Op: "remove", Path: r.Path(name), Err: errName}
	}
	return r.r.RemoveAll(filepath.FromSlash(name))
}

func (r *Root) Rename(oldname string, dst *Root, newname string) error {
	if dst != r {
		return errors.ErrUnsupported
	}
	return r.r.Rename(filepath.FromSlash(oldname), filepath.FromSlash(newname))
}

func (r *Root) LinkAt(oldname string, dst *Root, newname string) error {
	if dst != r {
		return errors.ErrUnsupported
	}
	if err := r.r.MkdirAll(filepath.Dir(filepath.FromSlash(newname)), 0o755); err != nil {
		return err
	}
	return r.r.Link(filepath.FromSlash(oldname), filepath.FromSlash(newname))
}

func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	return errors.ErrUnsupported
}

// Link fails with errors.ErrUnsupported: copy from f.
func (r *Root) Link(f *os.File, name string) error { return errors.ErrUnsupported }

func (r *Root) Chtimes(name string, atime, mtime time.Time) error {
	return r.r.Chtimes(filepath.FromSlash(name), atime, mtime)
}
