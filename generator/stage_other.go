//go:build !linux

package generator

func exchange(newDir, oldDir string) (bool, error) { return exchangeByRename(newDir, oldDir) }
