//go:build !unix

package generator

import "os"

const treeOpenFlags = os.O_RDONLY
