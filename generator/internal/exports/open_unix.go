//go:build unix

package exports

import (
	"os"
	"syscall"
)

// openFlags opens the local file of a record without blocking on a
// FIFO; the type is checked once it is open.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
