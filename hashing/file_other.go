//go:build !unix

package hashing

import (
	"io/fs"
	"os"
)

const openFlags = os.O_RDONLY

func clearNonblock(*os.File) error { return nil }

func devIno(fs.FileInfo) (uint64, uint64) { return 0, 0 }
