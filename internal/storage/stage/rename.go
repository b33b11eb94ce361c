package stage

import (
	"errors"
	"io/fs"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// exchange puts the directory newDir of root at oldDir. If oldDir exists,
// the two are swapped atomically where the system can (renameat2
// RENAME_EXCHANGE), else by two renames (exchangeByRename), and newDir
// then holds the old content.
func exchange(root *confined.Root, newDir, oldDir string) error {
	err := root.Exchange(newDir, root, oldDir)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return exchangeByRename(root, newDir, oldDir)
	case errors.Is(err, fs.ErrNotExist):
		if err := root.Rename(newDir, root, oldDir); err == nil {
			return nil
		}
	}
	return err
}

// exchangeByRename swaps two directories with two renames, for systems
// without an atomic exchange: for a moment oldDir does not exist.
func exchangeByRename(root *confined.Root, newDir, oldDir string) error {
	aside := newDir + ".old"
	if err := root.Rename(oldDir, root, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return root.Rename(newDir, root, oldDir)
		}
		return err
	}
	if err := root.Rename(newDir, root, oldDir); err != nil {
		root.Rename(aside, root, oldDir)
		return err
	}
	return root.Rename(aside, root, newDir)
}
