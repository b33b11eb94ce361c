//go:build !unix

package generator

import "os"

const dumpOpenFlags = os.O_RDONLY
