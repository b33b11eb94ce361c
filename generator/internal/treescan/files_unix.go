//go:build unix

package treescan

import (
	"os"
	"syscall"
)

// openFlags open a file of the tree for packaging without blocking on
// a FIFO swapped in since the walk (it is then refused: not a regular
// file).
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
