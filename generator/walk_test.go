package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestSwapDirForLinkDuringWalk: a directory replaced by a symbolic link to
// a directory outside the source, again and again while builds run, never
// makes a build publish a file from outside: not its name, nor its length
// or digest. With --follow-symlinks too: the swapped link leads outside,
// and links inside the source that lead through it are followed one name
// at a time, so they cannot be raced out of the source either.
func TestSwapDirForLinkDuringWalk(t *testing.T) {
	// Not parallel: it counts the descriptors of the whole process.
	outside := t.TempDir()
	src := t.TempDir()
	const n = 40
	secret := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("f%02d", i)
		testenv.WriteFile(t, src, "zz/"+name, "inside, the published one")
		content := fmt.Sprintf("outside the source, never published %02d", i)
		testenv.WriteFile(t, outside, name, content)
		testenv.WriteFile(t, outside, "sub/"+name, content)
		sum := sha256.Sum256([]byte(content))
		secret["sha-256:"+hex.EncodeToString(sum[:])] = true
	}
	testenv.WriteFile(t, outside, "only-outside", "outside")
	testenv.WriteFile(t, src, "zz/sub/f00", "inside")
	testenv.WriteFile(t, src, "a.txt", "a")
	// Links inside the source, followed with --follow-symlinks, through
	// the directory that is swapped.
	for name, target := range map[string]string{"l": "zz", "lsub": "zz/sub", "lf": "zz/f01", "labs": filepath.Join(src, "zz", "sub", "f00")} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}

	zz, moved := filepath.Join(src, "zz"), filepath.Join(src, ".zz-moved")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := os.Rename(zz, moved); err != nil {
				t.Error(err)
				return
			}
			if err := os.Symlink(outside, zz); err != nil {
				t.Error(err)
				return
			}
			if err := os.Remove(zz); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(moved, zz); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()

	fds := openFiles(t)
	deadline := time.Now().Add(time.Second)
	for i := 0; i < 30 && time.Now().Before(deadline); i++ {
		cfg := testConfig(t, src, t.TempDir())
		cfg.FollowSymlinks = i%2 == 1
		cfg.Hashes = hashing.Set{hashing.SHA256}
		if _, err := Build(context.Background(), cfg); err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		pub := readBack(t, cfg)
		for _, e := range pub.entries {
			if secret[e.MD.Hash] || strings.Contains(e.Loc, "only-outside") {
				t.Fatalf("build %d (follow %v) published %s with %s, a file from outside the source", i, cfg.FollowSymlinks, e.Loc, e.MD.Hash)
			}
		}
	}
	if now := openFiles(t); now > fds {
		t.Errorf("%d descriptors open after the builds, %d before: directories left open", now, fds)
	}
}

// openFiles counts the descriptors the process has open, where the system
// says.
func openFiles(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// TestInterruptedWalkClosesDirectories: a build stopped during the walk
// leaves no directory open, whatever was queued for the workers.
func TestInterruptedWalkClosesDirectories(t *testing.T) {
	// Not parallel: it counts the descriptors of the whole process.
	src := t.TempDir()
	for i := range 300 {
		testenv.WriteFile(t, src, fmt.Sprintf("d%03d/f", i), "x")
	}
	before := openFiles(t)
	if before < 0 {
		t.Skip("no /proc/self/fd to count open descriptors")
	}
	for _, cache := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		cfg := testConfig(t, src, t.TempDir())
		if cache {
			cfg.Cache = filepath.Join(t.TempDir(), "cache")
		}
		cfg.listed = func(rel string) {
			if rel == "d150/f" {
				cancel()
			}
		}
		if _, err := Build(ctx, cfg); err == nil {
			t.Fatalf("cache %v: the interrupted build succeeded", cache)
		}
		cancel()
		if now := openFiles(t); now > before {
			t.Errorf("cache %v: %d descriptors open after the interrupted build, %d before", cache, now, before)
		}
	}
}
