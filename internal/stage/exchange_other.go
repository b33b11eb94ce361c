//go:build !linux

package stage

func exchange(newDir, oldDir string) (bool, error) { return exchangeByRename(newDir, oldDir) }
