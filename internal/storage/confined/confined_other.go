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
// it is an os.Root, which refuses names leading outside it.
type Root struct {
	r    *os.Root
	f    *os.File
	name string
}

// Open opens the directory dir as a Root.
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

// OpenFile opens name with flag and, if it is created, perm.
func (r *Root) OpenFile(name string, flag int, perm fs.FileMode) (f *os.File, err error) {
	err = r.at("open", name, func(name string) error {
		f, err = r.r.OpenFile(name, flag, perm)
		return err
	})
	return f, err
}

// Mkdir makes the directory name.
func (r *Root) Mkdir(name string, perm fs.FileMode) error {
	return r.at("mkdir", name, func(name string) error { return r.r.Mkdir(name, perm) })
}

// MkdirAll makes the directory name and those missing on the way.
func (r *Root) MkdirAll(name string, perm fs.FileMode) error {
	if path.Clean(name) == "." {
		return nil
	}
	return r.at("mkdir", name, func(name string) error { return r.r.MkdirAll(name, perm) })
}

// Remove removes the file, link or empty directory name.
func (r *Root) Remove(name string) error { return r.at("remove", name, r.r.Remove) }

// RemoveDir removes the directory name if it is empty.
func (r *Root) RemoveDir(name string) error {
	if st, err := r.r.Lstat(filepath.FromSlash(name)); err != nil || !st.IsDir() {
		return &fs.PathError{Op: "remove", Path: r.Path(name), Err: errors.New("not a directory")}
	}
	return r.Remove(name)
}

// RemoveAll removes name and everything in it.
func (r *Root) RemoveAll(name string) error {
	if path.Clean(name) == "." {
		return &fs.PathError{Op: "remove", Path: r.Path(name), Err: errName}
	}
	return r.at("remove", name, r.r.RemoveAll)
}

// Rename renames oldname in r to newname in dst, which must be r.
func (r *Root) Rename(oldname string, dst *Root, newname string) error {
	if dst != r {
		return errors.ErrUnsupported
	}
	return r.r.Rename(filepath.FromSlash(oldname), filepath.FromSlash(newname))
}

// LinkAt makes newname in dst, which must be r, a hard link to oldname.
func (r *Root) LinkAt(oldname string, dst *Root, newname string) error {
	if dst != r {
		return errors.ErrUnsupported
	}
	if err := r.r.MkdirAll(filepath.Dir(filepath.FromSlash(newname)), 0o755); err != nil {
		return err
	}
	return r.r.Link(filepath.FromSlash(oldname), filepath.FromSlash(newname))
}

// Exchange fails with errors.ErrUnsupported.
func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	return errors.ErrUnsupported
}

// Link fails with errors.ErrUnsupported: copy from f.
func (r *Root) Link(f *os.File, name string) error { return errors.ErrUnsupported }

// Chtimes sets the access and modification times of name.
func (r *Root) Chtimes(name string, atime, mtime time.Time) error {
	return r.r.Chtimes(filepath.FromSlash(name), atime, mtime)
}
