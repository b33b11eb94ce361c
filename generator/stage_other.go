//go:build !linux

package generator

import (
	"errors"
	"os"
	"syscall"
)

func exchange(newDir, oldDir string) (bool, error) { return exchangeByRename(newDir, oldDir) }

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, os.ErrPermission)
}
