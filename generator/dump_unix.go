//go:build unix

package generator

import (
	"os"
	"syscall"
)

// dumpOpenFlags open a file for packaging without blocking on a FIFO
// swapped in since the walk (it is then refused: not a regular file).
const dumpOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK
