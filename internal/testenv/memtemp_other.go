//go:build !linux

package testenv

// memDir is "": no memory file system is known here.
func memDir() string { return "" }
