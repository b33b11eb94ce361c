//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package stage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// A dirLock would be an exclusive lock on a directory. This system has no
// flock(2): builds are not locked, so two at once into one output are not
// refused, and every stage found is taken for a killed build's.
type dirLock struct{}

var errLocked = errors.New("locked")

func lockDir(dir string) (*dirLock, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return &dirLock{}, nil
}

func (l *dirLock) unlock() {}

// syncDir does nothing: directories cannot be opened for syncing here.
func syncDir(string) error { return nil }

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
