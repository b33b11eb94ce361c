//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stage

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// A dirLock is an exclusive flock(2) on a directory, which the system
// releases when the process ends, however it ends.
type dirLock struct{ f *os.File }

var errLocked = errors.New("locked")

// lockDir takes the lock of dir without waiting, or fails with errLocked.
func lockDir(dir string) (*dirLock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	}
	return &dirLock{f: f}, nil
}

// unlock releases the lock before closing: a process forked meanwhile
// (os/exec, between fork and exec) shares the open file and would hold
// the lock until it execs.
func (l *dirLock) unlock() {
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
}

// syncDir makes the entries of dir durable. File systems that cannot sync
// a directory order their metadata themselves.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		err = nil
	}
	return confined.CloseAfter(f, err)
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
