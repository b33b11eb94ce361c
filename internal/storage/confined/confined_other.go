//go:build !unix

package confined

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"
)

// A Root is a directory opened once: see the package documentation. Here
// it is an os.Root, which refuses names leading outside it. The methods do
// what those of confined_unix.go say.
type Root struct {
	r    *os.Root
	f    *os.File
	name string
}

func Open(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, err
	}
	return &Root{r: r, f: f, name: dir}, nil
}

func (r *Root) Close() error { r.f.Close(); return r.r.Close() }

// SyncDir does nothing: directories cannot be opened for syncing here.
func SyncDir(string) error { return nil }

// at checks that name is local to r and calls fn with it as os.Root
// takes it.
func (r *Root) at(op, name string, fn func(name string) error) error {
	if _, err := split(name); err != nil {
		return &fs.PathError{Op: op, Path: r.Path(name), Err: err}
	}
	return fn(filepath.FromSlash(name))
}

func (r *Root) OpenFile(name string, flag int, perm fs.FileMode) (f *os.File, err error) {
	err = r.at("open", name, func(name string) error {
		f, err = r.r.OpenFile(name, flag, perm)
		return err
	})
	return f, err
}

func (r *Root) Mkdir(name string, perm fs.FileMode) error {
	return r.at("mkdir", name, func(name string) error { return r.r.Mkdir(name, perm) })
}

func (r *Root) MkdirAll(name string, perm fs.FileMode) error {
	if path.Clean(name) == "." {
		return nil
	}
	return r.at("mkdir", name, func(name string) error { return r.r.MkdirAll(name, perm) })
}

func (r *Root) Remove(name string) error { return r.at("remove", name, r.r.Remove) }

func (r *Root) RemoveDir(name string) error {
	if st, err := r.r.Lstat(filepath.FromSlash(name)); err != nil || !st.IsDir() {
		return &fs.PathError{Op: "remove", Path: r.Path(name), Err: errors.New("not a directory")}
	}
	return r.Remove(name)
}

func (r *Root) RemoveAll(name string) error {
	if path.Clean(name) == "." {
		return &fs.PathError{Op: "remove", Path: r.Path(name), Err: errName}
	}
	return r.at("remove", name, r.r.RemoveAll)
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
