//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stage

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// A directory lock is free once unlocked, even while another descriptor of
// the same open file lives on, as it does in a child that os/exec forked
// while the build ran and that has not exec'd yet (a dup shares the open
// file the same way).
func TestUnlockWithDescriptorShared(t *testing.T) {
	dir := t.TempDir()
	l, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	child, err := unix.Dup(int(l.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(child)
	if _, err := lockDir(dir); !errors.Is(err, errLocked) {
		t.Fatalf("second lock while held: %v, want errLocked", err)
	}
	unlock(l)
	l2, err := lockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock, another descriptor still open: %v", err)
	}
	unlock(l2)
}
