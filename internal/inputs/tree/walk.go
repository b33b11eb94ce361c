// Package tree is the source of a build that is a directory tree: a
// Walker that lists its files in the order of their paths, safely under
// its root, through the directories it holds open (Dir), and the Filter
// that decides which are published. Hold and Release of a Dir may be
// called from several goroutines.
package tree

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
	"github.com/rsgen/rsgen/internal/text/display"
)

// A File is a regular file found by the Walker.
type File struct {
	Rel  string // slash-separated path under the root: the published name
	Dir  *Dir   // the directory that holds it (a symbolic link's target, if followed), held for the file
	Name string // its name in Dir
}

// A Walker lists the files of a tree, in byte order of their paths (see
// Walker.sort), through Dirs: nothing renamed while it runs leads it out of
// the root, not even a symbolic link it follows (resolve).
type Walker struct {
	Root   string // absolute, symbolic links resolved
	Filter *Filter
	Follow bool                   // follow symbolic links (within the root)
	Skip   func(real string) bool // never walk this path under the root, once links are resolved (rsgen's own output)

	// Problem is called with a file or directory (dir) that cannot be
	// published, by its published path ("." for the root); Unread with
	// each directory, published as rel, that could not be read (in full):
	// its files are unknown. Notice is called with what a user should
	// know (a link not followed). Emit is called with each file, in
	// order; it takes over f.Dir's hold, and its error ends the walk.
	Problem func(rel string, dir bool, err error)
	Unread  func(rel string)
	Notice  func(string)
	Emit    func(f File) error

	// SpillDir, if set, is a directory for the sorted listings of
	// directories larger than BigDir entries: their names are sorted on
	// disk there, not in memory. Without it they are sorted in memory.
	SpillDir string
	// BigDir is the most entries of a directory sorted in memory;
	// DefaultBigDir if 0.
	BigDir int

	// ReadDirHook, if set, is called with each directory the walk lists;
	// its error replaces the listing, as if the directory could not be
	// read. It is for tests.
	ReadDirHook func(rel string) error

	top *Dir // the root, while the walk runs
}

// Walk walks the tree, until ctx is done or Emit fails.
func (w *Walker) Walk(ctx context.Context) error {
	top, err := OpenDir(w.Root)
	if err != nil {
		w.Problem(".", true, fmt.Errorf("reading directory: %w", display.WithoutPath(err)))
		w.Unread("")
		return nil
	}
	defer top.Release()
	w.top = top
	d, rel, ancestors := top, "", []DirID{top.id}
	for _, name := range w.Filter.under() {
		crel := path.Join(rel, name)
		if w.Filter.PruneDir(name, crel) || !utf8.ValidString(name) || w.Skip(crel) {
			break
		}
		sub, err := d.OpenDir(name) // a directory, not a link: else walked as any is
		if err != nil {
			break
		}
		defer sub.Release()
		d, rel, ancestors = sub, crel, append(ancestors, sub.id)
	}
	return w.dir(ctx, d, rel, rel, ancestors)
}

// dir walks the directory d, published as rel; real is where it is under
// the root once symbolic links are resolved (rel, unless reached through
// a link), which is what decides whether it is rsgen's own output.
// ancestors holds the identities of the directories above it and its own,
// to stop symbolic link loops.
func (w *Walker) dir(ctx context.Context, d *Dir, rel, real string, ancestors []DirID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var entries []fs.DirEntry
	var err error
	if w.ReadDirHook != nil {
		err = w.ReadDirHook(rel)
	}
	var f *os.File
	if err == nil {
		f, err = d.List()
	}
	if err == nil {
		defer f.Close()
		big := w.bigDirEntries()
		if entries, err = f.ReadDir(big + 1); err == io.EOF {
			entries, err = nil, nil
		}
		if err == nil && len(entries) > big {
			if w.SpillDir != "" {
				return w.bigDir(ctx, d, f, entries, rel, real, ancestors)
			}
			var more []fs.DirEntry
			more, err = f.ReadDir(-1)
			entries = append(entries, more...)
		}
	}
	if err != nil && !w.unreadable(rel, err, len(entries) > 0) {
		return nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	w.sort(d, real, entries)
	for _, de := range entries {
		if err := w.entry(ctx, d, rel, real, de, ancestors); err != nil {
			return err
		}
	}
	return nil
}

// unreadable reports a directory that could not be listed, or only in
// part, and says whether to walk what was listed.
func (w *Walker) unreadable(rel string, err error, some bool) bool {
	msg := "reading directory"
	if some {
		msg = "reading directory (listed in part)"
	}
	w.Problem(display.Rel(rel), true, fmt.Errorf("%s: %w", msg, display.WithoutPath(err)))
	w.Unread(rel)
	return some
}

// DefaultBigDir is the most entries of a directory a Walker sorts in memory; a
// larger one is sorted on disk, in SpillDir. A directory of millions of
// files (a flat export of records) then costs the memory of a sort's
// chunk, not about 200 bytes an entry.
const DefaultBigDir = 65536

func (w *Walker) bigDirEntries() int {
	if w.BigDir > 0 {
		return w.BigDir
	}
	return DefaultBigDir
}

// bigDirSortMemory is the memory of the sort of a big directory's names.
const bigDirSortMemory = 16 << 20

// bigDir walks a directory with more than w.BigDir entries, whose first
// ones, entries, were read from f: its names and types go through an
// external sort in SpillDir, keyed by the order of the walk (a directory's
// name followed by "/"), and are walked as they come out of it.
func (w *Walker) bigDir(ctx context.Context, d *Dir, f *os.File, entries []fs.DirEntry, rel, real string, ancestors []DirID) error {
	dir, err := confined.MkdirTemp(w.SpillDir, "dir-*")
	if err != nil {
		return fmt.Errorf("sorting the directory %s: %w", display.Rel(rel), err)
	}
	defer confined.RemoveAll(dir)
	sorter := extsort.New(dir, bigDirSortMemory)
	defer sorter.Close()
	var key []byte
	var typ [4]byte
	add := func(batch []fs.DirEntry) error {
		for _, de := range batch {
			key = append(key[:0], de.Name()...)
			if w.sortsAsDir(d, real, de) {
				key = append(key, '/')
			}
			binary.BigEndian.PutUint32(typ[:], uint32(de.Type()))
			if err := sorter.Add(key, typ[:]); err != nil {
				return fmt.Errorf("sorting the directory %s: %w", display.Rel(rel), err)
			}
		}
		return nil
	}
	for {
		if err := add(entries); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err = f.ReadDir(w.bigDirEntries())
		if err == io.EOF {
			break
		}
		if err != nil {
			if err := add(entries); err != nil {
				return err
			}
			w.unreadable(rel, err, true)
			break
		}
	}
	it, err := sorter.Iter()
	if err != nil {
		return fmt.Errorf("sorting the directory %s: %w", display.Rel(rel), err)
	}
	for it.Next() {
		name := strings.TrimSuffix(string(it.Key()), "/")
		de := sortedEntry{name: name, typ: fs.FileMode(binary.BigEndian.Uint32(it.Value()))}
		if err := w.entry(ctx, d, rel, real, de, ancestors); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("sorting the directory %s: %w", display.Rel(rel), err)
	}
	return nil
}

type sortedEntry struct {
	name string
	typ  fs.FileMode
}

func (e sortedEntry) Name() string               { return e.name }
func (e sortedEntry) IsDir() bool                { return e.typ.IsDir() }
func (e sortedEntry) Type() fs.FileMode          { return e.typ }
func (e sortedEntry) Info() (fs.FileInfo, error) { return nil, errors.New("not kept") }

// sort puts the entries of the directory d, at real under the root, in
// the order of the walk: by name, a directory's name followed by "/" (as
// git orders a tree). Walked depth first in that order, a tree gives its
// files in byte order of their paths ("a-b" < "a/x" < "a0"), the order of
// the Resource List, without a sort of them all. A symbolic link that is
// followed sorts as what it leads to; one that leads nowhere, as a file
// (it is not walked).
func (w *Walker) sort(d *Dir, real string, entries []fs.DirEntry) {
	dirs := 0
	isDir := make(map[string]bool)
	for _, de := range entries {
		if w.sortsAsDir(d, real, de) {
			isDir[de.Name()] = true
			dirs++
		}
	}
	if dirs == 0 {
		return // sorted by name already
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int {
		return treeOrder(a.Name(), isDir[a.Name()], b.Name(), isDir[b.Name()])
	})
}

// sortsAsDir reports whether the entry de of the directory d, at real
// under the root, sorts as a directory: it is one, or a symbolic link the
// walk follows to one.
func (w *Walker) sortsAsDir(d *Dir, real string, de fs.DirEntry) bool {
	switch {
	case de.IsDir():
		return true
	case de.Type()&fs.ModeSymlink != 0 && w.Follow:
		t, err := w.resolve(d, real, de.Name())
		if err != nil {
			return false
		}
		t.dir.Release()
		return t.mode.IsDir()
	}
	return false
}

// treeOrder compares the names a and b of two entries of a directory as
// a+"/" if aDir, b+"/" if bDir, without making those strings.
func treeOrder(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	next := func(s string, dir bool) int {
		switch {
		case len(s) > n:
			return int(s[n])
		case dir:
			return '/'
		}
		return -1
	}
	return next(a, aDir) - next(b, bDir)
}

func (w *Walker) entry(ctx context.Context, d *Dir, rel, real string, de fs.DirEntry, ancestors []DirID) error {
	name := de.Name()
	crel, creal := name, name
	if rel != "" {
		crel = rel + "/" + name
	}
	if real != "" {
		creal = real + "/" + name
	}
	if w.Skip(creal) {
		return nil
	}
	mode := de.Type()
	parent, base := d, name
	var sub *Dir // a followed link's target directory, opened
	if mode&fs.ModeSymlink != 0 {
		if !w.Follow {
			return nil
		}
		t, err := w.resolve(d, real, name)
		if err != nil {
			if errors.Is(err, errOutside) {
				w.Notice(fmt.Sprintf("%s: symbolic link leads outside the source, not followed", display.Name(crel)))
			} else {
				w.Notice(fmt.Sprintf("%s: symbolic link not followed: %v", display.Name(crel), display.WithoutPath(err)))
			}
			return nil
		}
		defer t.dir.Release()
		creal, mode = t.real, t.mode
		if t.name == "" {
			sub = t.dir
		} else {
			parent, base = t.dir, t.name
		}
		if w.Skip(creal) {
			return nil
		}
		if w.Filter.withholds(creal) {
			w.Notice(fmt.Sprintf("%s: symbolic link leads to a hidden or excluded path, not followed", display.Name(crel)))
			return nil
		}
	} else if creal != crel && w.Filter.withholds(creal) {
		return nil // under a link followed: withheld where it really is
	}
	switch {
	case mode.IsDir():
		if w.Filter.PruneDir(name, crel) || !w.validName(name, crel) {
			return nil
		}
		if sub == nil {
			var err error
			if sub, err = parent.OpenDir(base); err != nil {
				w.Problem(crel, true, fmt.Errorf("reading directory: %w", describeOpenError(err)))
				w.Unread(crel)
				return nil
			}
			defer sub.Release()
		}
		if slices.Contains(ancestors, sub.id) {
			w.Notice(fmt.Sprintf("%s: symbolic link loop, not followed", display.Name(crel)))
			return nil
		}
		return w.dir(ctx, sub, crel, creal, append(ancestors, sub.id))
	case mode.IsRegular():
		if !w.Filter.Publishes(name, crel) || !w.validName(name, crel) {
			return nil
		}
		return w.Emit(File{Rel: crel, Dir: parent.Hold(), Name: base})
	}
	// FIFOs, sockets and devices have no bytes to publish; they are
	// skipped by type, never opened.
	return nil
}

func describeOpenError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("vanished during the build (deleted or renamed after it was listed)")
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENOTDIR):
		return errors.New("replaced during the build by something else than a directory, which is not followed")
	}
	return display.WithoutPath(err)
}

// validName reports whether name, which would be published as rel, has a
// URL; if not, it is a problem. Only names that would be published are
// checked: a hidden, excluded or special file is lost to no one.
func (w *Walker) validName(name, rel string) bool {
	if utf8.ValidString(name) {
		return true
	}
	w.Problem(fmt.Sprintf("%q", rel), false, errors.New("the name is not valid UTF-8 and has no URL; rename the file"))
	return false
}

var errOutside = errors.New("leads outside the source")

// maxLinks is how many symbolic links resolve follows for one name, as
// the kernel does (Linux's MAXSYMLINKS).
const maxLinks = 40

// A linkTarget is where a followed symbolic link leads.
type linkTarget struct {
	dir  *Dir // the target directory if name is "", else the one that holds the target; held
	name string
	real string      // the target's path under the root
	mode fs.FileMode // its type
}

// resolve follows the symbolic link name of d, which is at real under
// the root, one name at a time: directories are opened without following
// a link, and each link met is read and resolved in turn, from the root
// for "..", so that no rename made meanwhile can lead out of the root.
// An absolute target must name a path under the root.
func (w *Walker) resolve(d *Dir, real, name string) (linkTarget, error) {
	cur := d.Hold()
	defer func() { cur.Release() }()
	var at []string // cur's path under the root
	if real != "" {
		at = strings.Split(real, "/")
	}
	pending := []string{name}
	for links := 0; len(pending) > 0; {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return linkTarget{}, errOutside
			}
			at = at[:len(at)-1]
			up, err := w.openReal(at)
			if err != nil {
				return linkTarget{}, err
			}
			cur.Release()
			cur = up
			continue
		}
		info, err := cur.Lstat(c)
		if err != nil {
			return linkTarget{}, err
		}
		switch {
		case info.Mode&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return linkTarget{}, syscall.ELOOP
			}
			target, err := cur.Readlink(c)
			if err != nil {
				return linkTarget{}, err
			}
			parts := strings.Split(filepath.ToSlash(target), "/")
			if filepath.IsAbs(target) {
				under, ok := w.underRoot(parts)
				if !ok {
					return linkTarget{}, errOutside
				}
				cur.Release()
				cur, at, parts = w.top.Hold(), nil, under
			}
			pending = append(parts, pending...)
		case info.Mode.IsDir():
			sub, err := cur.OpenDir(c)
			if err != nil {
				return linkTarget{}, err
			}
			cur.Release()
			cur, at = sub, append(at, c)
		default:
			if len(pending) > 0 {
				return linkTarget{}, syscall.ENOTDIR
			}
			return linkTarget{dir: cur.Hold(), name: c, real: strings.Join(append(at, c), "/"), mode: info.Mode}, nil
		}
	}
	return linkTarget{dir: cur.Hold(), real: strings.Join(at, "/"), mode: fs.ModeDir}, nil
}

// openReal opens the directory at path under the root, held.
func (w *Walker) openReal(path []string) (*Dir, error) {
	d := w.top.Hold()
	for _, c := range path {
		sub, err := d.OpenDir(c)
		d.Release()
		if err != nil {
			return nil, err
		}
		d = sub
	}
	return d, nil
}

// underRoot returns the names under the root of parts, an absolute path
// split at its slashes, if it is the root or below it: its names up to the
// root's must be the root's, with no "..".
func (w *Walker) underRoot(parts []string) ([]string, bool) {
	root := strings.Split(filepath.ToSlash(w.Root), "/")
	clean := func(p []string) []string {
		return slices.DeleteFunc(slices.Clone(p), func(s string) bool { return s == "" || s == "." })
	}
	root, parts = clean(root), clean(parts)
	if len(parts) < len(root) || !slices.Equal(parts[:len(root)], root) {
		return nil, false
	}
	return parts[len(root):], true
}
