package main

import (
	"strings"
	"testing"
)

// urfave/cli reads no flag after the first argument: a flag written after
// PATH or DIR (as the README once showed for serve) must be a usage error
// that says where flags go, not a path that cannot be read.
func TestFlagsAfterTheArguments(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
	}{
		{"validate PATH --strict", []string{"validate", dir, "--strict"}},
		{"validate PATH --resources DIR", []string{"validate", dir, "--resources", dir}},
		{"validate PATH --format=json", []string{"validate", dir, "--format=json"}},
		{"serve DIR --addr", []string{"serve", dir, "--addr", "127.0.0.1:0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := rsgen(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, "before") {
				t.Errorf("stderr does not say that flags go first: %s", stderr)
			}
		})
	}
}
