package confined

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// ErrSymlink is wrapped by the error of a call whose name leads through a
// symbolic link.
var ErrSymlink = errors.New("is a symbolic link, which rsgen does not write through")

// ErrTooLarge is wrapped by the error of ReadFile for a file past its bound.
var ErrTooLarge = errors.New("larger than")

// ErrDanglingLink reports a path named that is a symbolic link to nothing:
// rsgen does not create a file wherever a link points.
var ErrDanglingLink = errors.New("a symbolic link to a file that does not exist")

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
func (r *Root) CreateTemp(dir, pattern string) (f *os.File, name string, err error) {
	name, err = r.temp("createtemp", dir, pattern, func(name string) (err error) {
		f, err = r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		return err
	})
	return f, name, err
}

// MkdirTemp creates a new directory in the directory dir of r, named as
// CreateTemp names, and returns its name in r.
func (r *Root) MkdirTemp(dir, pattern string) (string, error) {
	return r.temp("mkdirtemp", dir, pattern, func(name string) error { return r.Mkdir(name, 0o700) })
}

func (r *Root) temp(op, dir, pattern string, create func(name string) error) (string, error) {
	for range 100 {
		var b [8]byte
		rand.Read(b[:])
		rnd := hex.EncodeToString(b[:])
		base := pattern + rnd
		if i := strings.LastIndex(pattern, "*"); i >= 0 {
			base = pattern[:i] + rnd + pattern[i+1:]
		}
		name := path.Join(filepath.ToSlash(dir), base)
		if err := create(name); !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", &fs.PathError{Op: op, Path: r.Path(path.Join(dir, pattern)), Err: fs.ErrExist}
}

// The functions below take a path: a file the user named (rsgen init's
// FILE) or scratch files in directories rsgen made itself. The directory
// of the path is opened as given; the last name is never followed.

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

// MkdirAll makes the directory dir a user named, following links: they
// are the user's own.
func MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// Mkdir makes the directory path.
func Mkdir(path string, perm fs.FileMode) error {
	return within(path, func(r *Root, name string) error { return r.Mkdir(name, perm) })
}

// Remove removes the file, link or empty directory path.
func Remove(path string) error { return within(path, (*Root).Remove) }

// RemoveEmpty removes the directory path if it is empty; a link is left.
func RemoveEmpty(path string) error { return within(path, (*Root).RemoveDir) }

// RemoveAll removes path and everything under it, following no link; a
// path where nothing is, is no error.
func RemoveAll(path string) error {
	err := within(path, (*Root).RemoveAll)
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// A Replacement is the new version of a file a user named (a hash cache,
// a state file), written into a temporary file beside it and renamed over
// it by Commit: a reader sees the old file or the new one, never a mix.
type Replacement struct {
	File   *os.File // the temporary file, to write
	Target string   // the file replaced: the path named, its links resolved
	Dir    *Root    // opened where Locate found it
	Name   string   // Target's name in Dir
	tmp    string   // the temporary file's name in Dir
	done   bool
}

// Replace starts the replacement of the file at path, found by Locate
// (the caller checks it before Commit). The temporary file is named by
// pattern (see CreateTemp) beside it.
func Replace(file, pattern string, untrusted ...string) (*Replacement, error) {
	root, name, err := Locate(file, untrusted...)
	if err != nil {
		return nil, err
	}
	return ReplaceIn(root, name, pattern)
}

// ReplaceIn starts the replacement of the file name in root, which the
// Replacement closes.
func ReplaceIn(root *Root, name, pattern string) (*Replacement, error) {
	f, tmp, err := root.CreateTemp(path.Dir(name), pattern)
	if err != nil {
		root.Close()
		return nil, err
	}
	return &Replacement{File: f, Target: root.Path(name), Dir: root, Name: name, tmp: tmp}, nil
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

// Locate opens the directory of the file at the path file as a Root and returns
// the file's name in it. Links on the way are followed, one component at a
// time, until the way enters one of the untrusted directories (whose
// content others shape, as SOURCE's): from there on the name is walked by
// the Root, which fails at a link with ErrSymlink. Elsewhere a link is the
// user's own; one at the file that leads to nothing fails with
// ErrDanglingLink.
func Locate(file string, untrusted ...string) (*Root, string, error) {
	var trees []string
	for _, t := range untrusted {
		if t == "" {
			continue
		}
		if abs, err := filepath.Abs(t); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			trees = append(trees, abs)
		}
	}
	abs := file
	if !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, "", err
		}
		abs = wd + string(filepath.Separator) + file
	}
	// Not cleaned as text: a ".." after a link is the parent of where the
	// link leads, as the system reads the path. dir is always free of links.
	vol := filepath.VolumeName(abs) + string(filepath.Separator)
	dir, rest := vol, components(abs[len(vol):])
	for links := 0; len(rest) > 0; {
		switch rest[0] {
		case ".":
			rest = rest[1:]
			continue
		case "..":
			dir, rest = filepath.Dir(dir), rest[1:]
			continue
		}
		inTree := slices.ContainsFunc(trees, func(t string) bool {
			rel, err := filepath.Rel(t, dir)
			return err == nil && filepath.IsLocal(rel)
		})
		if inTree && !slices.Contains(rest, "..") {
			root, err := Open(dir)
			return root, strings.Join(slices.DeleteFunc(rest, func(c string) bool { return c == "." }), "/"), err
		}
		next := filepath.Join(dir, rest[0])
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			dir, rest = next, rest[1:]
			continue
		}
		if inTree {
			return nil, "", &fs.PathError{Op: "open", Path: next, Err: ErrSymlink}
		}
		if links++; links > 255 {
			return nil, "", &fs.PathError{Op: "locate", Path: file, Err: errors.New("too many levels of symbolic links")}
		}
		to, err := os.Readlink(next)
		if err != nil {
			return nil, "", err
		}
		if !filepath.IsAbs(to) {
			to = dir + string(filepath.Separator) + to
		}
		vol = filepath.VolumeName(to) + string(filepath.Separator)
		dir, rest = vol, append(components(to[len(vol):]), rest[1:]...)
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(abs); err == nil {
			return nil, "", fmt.Errorf("%s is %w", file, ErrDanglingLink)
		}
	}
	root, err := Open(filepath.Dir(dir))
	return root, filepath.Base(dir), err
}

func components(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) })
}

// Commit syncs and closes the temporary file and renames it over Target.
func (r *Replacement) Commit() error {
	err := CloseAfter(r.File, r.File.Sync())
	if err == nil {
		err = r.Dir.Rename(r.tmp, r.Dir, r.Name)
	}
	if err != nil {
		r.Abort()
		return err
	}
	r.done = true
	r.Dir.Close()
	return SyncDir(filepath.Dir(r.Target))
}

// Abort removes the temporary file; after Commit it does nothing.
func (r *Replacement) Abort() {
	if r.done {
		return
	}
	r.done = true
	r.File.Close()
	r.Dir.Remove(r.tmp)
	r.Dir.Close()
}
