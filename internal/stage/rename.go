package stage

import (
	"errors"
	"io/fs"
	"os"
)

// exchangeByRename swaps two directories with two renames, for systems
// without an atomic exchange: for a moment oldDir does not exist.
func exchangeByRename(newDir, oldDir string) (bool, error) {
	aside := newDir + ".old"
	if err := os.Rename(oldDir, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, os.Rename(newDir, oldDir)
		}
		return false, err
	}
	if err := os.Rename(newDir, oldDir); err != nil {
		os.Rename(aside, oldDir)
		return false, err
	}
	return true, os.Rename(aside, newDir)
}
