package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestManySetsReadInLinearSpace reads configuration files of 200 and 1,600
// sets, as far as the start of the build (their previous build is
// missing): the memory allocated grows as the sets do, and stays small
// for each (it was 190 KB a set, a file of 8,000 sets took 1.1 GB). Not
// timed: the bytes and allocations are counted.
func TestManySetsReadInLinearSpace(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	measure := func(n int) (bytes, allocs float64) {
		path := filepath.Join(dir, fmt.Sprintf("sets%d.toml", n))
		var b strings.Builder
		b.WriteString("out = \"out\"\ndocs-url = \"https://example.org/\"\nprevious = \"missing\"\nhash = \"sha-256\"\n")
		for i := range n {
			fmt.Fprintf(&b, "\n[[set]]\nname = \"s%d\"\nsource = \"src/s%d\"\nbase-url = \"https://example.org/s%d/\"\ninclude = [\"**/*.html\"]\n", i, i, i)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		run := func() {
			if code, _, stderr := runCLI(t, context.Background(), "build", "--config", path); !strings.Contains(stderr, "missing") {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
		}
		run() // warm
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(n), float64(after.Mallocs-before.Mallocs) / float64(n)
	}
	smallBytes, smallAllocs := measure(200)
	bigBytes, bigAllocs := measure(1600)
	t.Logf("per set: %.0f bytes, %.0f allocations (200 sets); %.0f bytes, %.0f allocations (1,600 sets)", smallBytes, smallAllocs, bigBytes, bigAllocs)
	if bigBytes > 1.5*smallBytes || bigAllocs > 1.5*smallAllocs {
		t.Errorf("the cost of a set grows with the sets: %.0f bytes and %.0f allocations a set for 1,600 sets, %.0f and %.0f for 200", bigBytes, bigAllocs, smallBytes, smallAllocs)
	}
	if bigBytes > 48<<10 {
		t.Errorf("%.0f bytes allocated a set: want at most 48 KB", bigBytes)
	}
}
