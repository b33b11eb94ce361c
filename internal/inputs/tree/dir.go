package tree

import (
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// A Dir is an open directory of a tree being walked. Its subdirectories
// and files are opened relative to it, one name at a time and never
// through a symbolic link, so that a directory renamed or replaced by a
// link while the walk runs cannot lead the walk, or the reading of the
// files it found, out of the tree: what is read is what the walk listed,
// or nothing. (Outside unix a Dir is only a path, without that guarantee.)
//
// A Dir is closed when its last holder releases it. Hold and Release may be
// called from several goroutines; the other methods too, while the caller
// holds the Dir.
type Dir struct {
	path string // where it was when opened, for messages
	id   DirID
	refs atomic.Int32
	sys  dirSys
}

// A DirID tells directories apart (device and inode, where the system has
// them): a walk that meets a directory it is inside of has met a loop.
type DirID struct {
	dev, ino uint64
	path     string // outside unix
}

// OpenDir opens the directory at path, held once.
func OpenDir(path string) (*Dir, error) {
	d := &Dir{path: path}
	if err := d.sys.open(d, path); err != nil {
		return nil, err
	}
	d.refs.Store(1)
	return d, nil
}

// OpenDir opens the subdirectory name of d, held once. It fails (with
// syscall.ELOOP or syscall.ENOTDIR on unix) if name is not, or no longer,
// a directory: a symbolic link is not followed.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	sub := &Dir{path: d.path + "/" + name}
	if err := sub.sys.openAt(d, sub, name); err != nil {
		return nil, &fs.PathError{Op: "open", Path: sub.path, Err: err}
	}
	sub.refs.Store(1)
	return sub, nil
}

// Path returns where d was when it was opened.
func (d *Dir) Path() string { return d.path }

// Hold adds a holder to d and returns d.
func (d *Dir) Hold() *Dir {
	d.refs.Add(1)
	return d
}

// Release drops a holder; the last one closes d. Release of a nil Dir does
// nothing.
func (d *Dir) Release() {
	if d != nil && d.refs.Add(-1) == 0 {
		d.sys.close()
	}
}

// Within reports whether path is root or below it. Both are clean and
// absolute.
func Within(root, path string) bool {
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}
