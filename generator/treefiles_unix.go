//go:build unix

package generator

import (
	"os"
	"syscall"
)

// treeOpenFlags open a file of the tree for packaging without blocking on
// a FIFO swapped in since the walk (it is then refused: not a regular
// file).
const treeOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK
