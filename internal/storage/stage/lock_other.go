//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package stage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
)

// This system has no flock(2): builds are not locked, so two at once into
// one output are not refused, and every stage found is taken for a killed
// build's.

var errLocked = errors.New("locked")

func lockDir(dir string) (*os.File, error) {
	_, err := os.Stat(dir)
	return nil, err
}

func unlock(*os.File) {}

// dirID identifies the documents directory dir by the digest of its
// manifest: this system gives no inode numbers to compare.
func dirID(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// fileID identifies the open file f by its modification time, to the
// nanosecond: this system gives no inode numbers, and a file put there by
// a checkout or a copy has the time it was put there.
func fileID(f *os.File) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(st.ModTime().UnixNano(), 10), nil
}

// stageID is "": only the journal's own identity (fileID) tells here.
func stageID(string) (string, error) { return "", nil }
