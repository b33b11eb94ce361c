//go:build !unix

package treescan

import "os"

const openFlags = os.O_RDONLY
