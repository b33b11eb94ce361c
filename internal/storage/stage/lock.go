//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

var errLocked = errors.New("locked")

// lockDir takes the lock of dir (confined.TryLock) without waiting, or
// fails with errLocked.
func lockDir(dir string) (*os.File, error) {
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
	return f, nil
}

func unlock(lock *os.File) {
	confined.Unlock(lock)
	lock.Close()
}

// dirID identifies the directory dir wherever it is renamed to: a publish
// tells by it whether its documents were swapped into place.
func dirID(dir string) (string, error) { return id(os.Lstat(dir)) }

func fileID(f *os.File) (string, error) { return id(f.Stat()) }

func stageID(dir string) (string, error) { return dirID(dir) }

func id(st fs.FileInfo, err error) (string, error) {
	if err != nil {
		return "", err
	}
	sys := st.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%d:%d", sys.Dev, sys.Ino), nil
}
