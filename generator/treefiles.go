package generator

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/zipdump"
)

// sourceFiles opens the files of the source of cfg for the dumps to
// package: the members of the archive arch if it is one, else the files
// of the tree at root (absolute, with links resolved).
func sourceFiles(cfg *Config, root string, arch *archivescan.Archive) dumps.Source {
	return func() (*dumps.Files, error) {
		if arch != nil {
			m, err := arch.OpenMembers()
			if err != nil {
				return nil, err
			}
			return &dumps.Files{Open: m.Open, Close: m.Close, Index: arch.Index, Sequential: m.Sequential()}, nil
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", cfg.Source, display.WithoutPath(err))
		}
		t := &treeFiles{root: r, dir: root, follow: cfg.FollowSymlinks}
		return &dumps.Files{Open: t.open, Close: func() { r.Close() }}, nil
	}
}

// treeFiles opens the files of a tree for packaging.
type treeFiles struct {
	root   *os.Root
	dir    string // the tree, absolute, with links resolved
	follow bool   // Config.FollowSymlinks
}

// open opens the file published as it.Name for packaging, through root,
// so that no symbolic link or rename made since the walk can lead outside
// the source. With FollowSymlinks, links inside the source are resolved
// first, as the walk resolved them.
func (t *treeFiles) open(it *zipdump.Item) (io.ReadCloser, error) {
	name := filepath.FromSlash(it.Name)
	if t.follow {
		resolved, err := filepath.EvalSymlinks(filepath.Join(t.dir, name))
		if err != nil {
			return nil, err
		}
		if !within(t.dir, resolved) {
			return nil, fmt.Errorf("%w: a symbolic link on its path now leads outside the source", zipdump.ErrChanged)
		}
		if name, err = filepath.Rel(t.dir, resolved); err != nil {
			return nil, err
		}
	}
	f, err := t.root.OpenFile(name, treeOpenFlags, 0)
	if err != nil {
		// Say why root refused it, if that is why.
		if !errors.Is(err, fs.ErrNotExist) {
			if resolved, rerr := filepath.EvalSymlinks(filepath.Join(t.dir, name)); rerr == nil && !within(t.dir, resolved) {
				return nil, fmt.Errorf("%w: a symbolic link on its path, put there after the walk, leads outside the source", zipdump.ErrChanged)
			}
		}
		return nil, err // not a nil *os.File in an interface
	}
	return f, nil
}
