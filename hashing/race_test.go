//go:build race

package hashing

func init() { raceEnabled = true }
