package treescan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/zipdump"
)

// A Tree is the tree a scan read, for reading its files again after the
// scan: the Resource Dump and the Change Dump package them (Open), and the
// join with the previous build reads again those of which it published
// digests of other algorithms (Job).
type Tree struct {
	Root   string // absolute, with links resolved
	Follow bool   // symbolic links are followed, as the scan followed them
}

// Job is the hashing job that reads the file published as rel again; a
// path whose links no longer resolve inside the tree is read as it is,
// and fails as the walk would.
func (t Tree) Job(rel string) hashing.Job {
	name, err := t.resolve(rel)
	if err != nil {
		name = filepath.FromSlash(rel)
	}
	return hashing.Job{Path: filepath.Join(t.Root, name)}
}

// resolve returns the name under the root of the file published as rel:
// rel itself, or with Follow, where its links lead, which must be inside
// the tree.
func (t Tree) resolve(rel string) (string, error) {
	name := filepath.FromSlash(rel)
	if !t.Follow {
		return name, nil
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(t.Root, name))
	if err != nil {
		return "", err
	}
	if !tree.Within(t.Root, resolved) {
		return "", fmt.Errorf("%w: a symbolic link on its path now leads outside the source", zipdump.ErrChanged)
	}
	return filepath.Rel(t.Root, resolved)
}

func (t Tree) Open() (*Files, error) {
	r, err := os.OpenRoot(t.Root)
	if err != nil {
		return nil, err
	}
	return &Files{root: r, tree: t}, nil
}

// Files are the files of a tree, open for packaging; Open may be called
// from several goroutines at once.
type Files struct {
	root *os.Root
	tree Tree
}

func (f *Files) Close() { f.root.Close() }

// Open opens the file published as it.Name through the tree's os.Root,
// which no link or rename made since the walk can lead out of, after
// resolving links inside the source as the walk did (Follow).
func (f *Files) Open(it *zipdump.Item) (io.ReadCloser, error) {
	dir := f.tree.Root
	name, err := f.tree.resolve(it.Name)
	if err != nil {
		return nil, err
	}
	file, err := f.root.OpenFile(name, regfile.OpenFlags, 0) // zipdump checks what it is
	if err != nil {
		// Say why root refused it, if that is why.
		if !errors.Is(err, fs.ErrNotExist) {
			if resolved, rerr := filepath.EvalSymlinks(filepath.Join(dir, name)); rerr == nil && !tree.Within(dir, resolved) {
				return nil, fmt.Errorf("%w: a symbolic link on its path, put there after the walk, leads outside the source", zipdump.ErrChanged)
			}
		}
		return nil, err // not a nil *os.File in an interface
	}
	return file, nil
}
