//go:build !unix

package generator

import "os"

// rootOpenFlags opens the local file of a record.
const rootOpenFlags = os.O_RDONLY
