//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stage

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// A dirLock is an exclusive lock on a directory (confined.TryLock).
type dirLock struct{ f *os.File }

var errLocked = errors.New("locked")

// lockDir takes the lock of dir without waiting, or fails with errLocked.
func lockDir(dir string) (*dirLock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	switch ok, err := confined.TryLock(f); {
	case err != nil:
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	case !ok:
		f.Close()
		return nil, errLocked
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) unlock() {
	confined.Unlock(l.f)
	l.f.Close()
}

// dirID identifies the directory dir wherever it is renamed to: a publish
// tells by it whether its documents were swapped into place.
func dirID(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return "", &os.PathError{Op: "lstat", Path: dir, Err: err}
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), nil
}

func fileID(f *os.File) (string, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), nil
}

func stageID(dir string) (string, error) { return dirID(dir) }
