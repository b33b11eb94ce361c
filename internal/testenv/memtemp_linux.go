package testenv

import (
	"os"
	"syscall"
)

// memDir makes a directory in /dev/shm if it is a tmpfs with at least a
// GiB free (a container's is often 64 MB), else returns "".
func memDir() string {
	const tmpfsMagic = 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic || uint64(st.Bavail)*uint64(st.Bsize) < 1<<30 {
		return ""
	}
	dir, err := os.MkdirTemp("/dev/shm", "rsgen-test-")
	if err != nil {
		return ""
	}
	// As /tmp: servers started by the tests under another user (apache)
	// reach the directories the tests open to them.
	if err := os.Chmod(dir, 0o1777); err != nil {
		os.Remove(dir)
		return ""
	}
	return dir
}
