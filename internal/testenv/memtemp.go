package testenv

import (
	"os"
)

// Main runs the tests of a package, its TestMain being
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// with their temporary directories (t.TempDir, os.MkdirTemp) on a memory
// file system where there is one (MemTemp).
func Main(m interface{ Run() int }) int {
	defer MemTemp()()
	return m.Run()
}

// MemTemp points TMPDIR at a new directory on a memory file system
// (Linux's /dev/shm, if it is a tmpfs with a GiB free), unless TMPDIR is
// set already or the long tests are asked for ($RSGEN_LONG_TESTS: they
// write gigabytes), and returns a function that removes that directory.
//
// The tests create and remove some hundred thousand files; on the ext4
// disk of a loaded 2-core machine the kernel spent 22 of the 31 s of CPU
// of generator's tests in openat, mkdirat and renameat, 3 s on a tmpfs.
// `TMPDIR=/tmp go test ./...` runs the tests on the disk.
func MemTemp() (remove func()) {
	if os.Getenv("TMPDIR") != "" || os.Getenv(LongEnv) == "1" { // not Long: flags are not parsed yet
		return func() {}
	}
	dir := memDir()
	if dir == "" {
		return func() {}
	}
	os.Setenv("TMPDIR", dir)
	return func() { os.RemoveAll(dir) }
}
