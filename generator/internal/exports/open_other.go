//go:build !unix

package exports

import "os"

// openFlags opens the local file of a record.
const openFlags = os.O_RDONLY
