package confined

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// ErrSymlink is wrapped by the error of a call whose name leads through a
// symbolic link.
var ErrSymlink = errors.New("is a symbolic link, which rsgen does not write through")

// errName reports a name that is not local to the root.
var errName = errors.New("not a name inside the directory")

// CloseAfter closes c and returns err, or else the error of Close.
func CloseAfter(c io.Closer, err error) error {
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// OpenRegular opens the regular file name as regfile.Open does.
func (r *Root) OpenRegular(name string) (*os.File, fs.FileInfo, error) {
	return regfile.Check(r.OpenFile(name, regfile.OpenFlags, 0))
}

// ErrTooLarge is wrapped by the error of ReadFile for a file past its bound.
var ErrTooLarge = errors.New("larger than")

// ReadFile reads the regular file name (OpenRegular) of at most max bytes.
func (r *Root) ReadFile(name string, max int64) ([]byte, error) {
	f, st, err := r.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var data []byte
	if st.Size() <= max {
		data, err = io.ReadAll(io.LimitReader(f, max+1))
	}
	if err == nil && (st.Size() > max || int64(len(data)) > max) {
		err = fmt.Errorf("%w %d bytes", ErrTooLarge, max)
	}
	return data, err
}

// Path returns the path of name in r, for messages.
func (r *Root) Path(name string) string { return filepath.Join(r.name, filepath.FromSlash(name)) }

// Name returns the path r was opened by.
func (r *Root) Name() string { return r.name }

// split returns the parts of the local name; "." has none.
func split(name string) ([]string, error) {
	clean := path.Clean(filepath.ToSlash(name))
	if clean == "." {
		return nil, nil
	}
	if !filepath.IsLocal(filepath.FromSlash(clean)) || strings.HasPrefix(clean, "/") {
		return nil, errName
	}
	return strings.Split(clean, "/"), nil
}

// Create creates the file name, which must not exist, for reading and
// writing, with the directories it needs.
func (r *Root) Create(name string) (*os.File, error) {
	if err := r.MkdirAll(path.Dir(filepath.ToSlash(name)), 0o755); err != nil {
		return nil, err
	}
	return r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
}

// WriteFile creates the file name, which must not exist, with data.
func (r *Root) WriteFile(name string, data []byte) error {
	f, err := r.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return CloseAfter(f, err)
}

// CreateTemp creates a new file in the directory dir of r, named as
// os.CreateTemp names, and returns it with its name in r.
func (r *Root) CreateTemp(dir, pattern string) (*os.File, string, error) {
	for range 100 {
		name := path.Join(filepath.ToSlash(dir), randomName(pattern))
		f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", &fs.PathError{Op: "createtemp", Path: r.Path(path.Join(dir, pattern)), Err: fs.ErrExist}
}

// MkdirTemp creates a new directory in the directory dir of r, named as
// CreateTemp names, and returns its name in r.
func (r *Root) MkdirTemp(dir, pattern string) (string, error) {
	for range 100 {
		name := path.Join(filepath.ToSlash(dir), randomName(pattern))
		err := r.Mkdir(name, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, err
	}
	return "", &fs.PathError{Op: "mkdirtemp", Path: r.Path(path.Join(dir, pattern)), Err: fs.ErrExist}
}

func randomName(pattern string) string {
	var b [8]byte
	rand.Read(b[:])
	rnd := hex.EncodeToString(b[:])
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		return pattern[:i] + rnd + pattern[i+1:]
	}
	return pattern + rnd
}

// MkdirAll makes the directory dir a user named, following links: they
// are the user's own.
func MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// RemoveEmpty removes the directory dir if it is empty; a link is left.
func RemoveEmpty(dir string) error {
	parent, err := Open(filepath.Dir(dir))
	if err != nil {
		return err
	}
	defer parent.Close()
	return parent.RemoveDir(filepath.Base(dir))
}
