//go:build unix

package generator

import (
	"os"
	"syscall"
)

// rootOpenFlags opens the local file of a record without blocking on a
// FIFO; the type is checked once it is open.
const rootOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK
