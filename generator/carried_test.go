package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/rsgen/rsgen/internal/testenv"
)

// carriedSetup publishes a Change Dump of one package into out, and
// returns the tree and the package's path.
func carriedSetup(t *testing.T) (*acTree, string, string) {
	t.Helper()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	mustBuild(t, acDumpConfig(tr.dir, out, acDay(2)))
	return tr, out, filepath.Join(out, docsDir, "changedump-20240602T000000Z-00001.zip")
}

// TestCarriedPackageChecked: a carried package is published again only
// if its bytes are those its entry's digest describes, whatever replaced
// them in the previous output (bytes overwritten in place, a hard link to
// an outside file of the same length), and one whose entry gives no
// digest is refused; the output is left as it was.
func TestCarriedPackageChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		tamper     func(t *testing.T, out, pkg string)
	}{
		{"four bytes overwritten", "sha-256 digest", func(t *testing.T, out, pkg string) {
			f, err := os.OpenFile(pkg, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("evil"), 100)
			f.Close()
		}},
		{"a hard link to an outside file", "sha-256 digest", func(t *testing.T, out, pkg string) {
			st, _ := os.Stat(pkg)
			secret := filepath.Join(t.TempDir(), "secret.txt")
			testenv.WriteFile(t, filepath.Dir(secret), "secret.txt", strings.Repeat("s", int(st.Size())))
			os.Remove(pkg)
			if err := os.Link(secret, pkg); err != nil {
				t.Skip(err)
			}
		}},
		{"no digest in its entry", "no digest rsgen computes", func(t *testing.T, out, pkg string) {
			p := filepath.Join(out, docsDir, "changedump.xml")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b = regexp.MustCompile(` (hash|length)="[^"]*"`).ReplaceAll(b, nil)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, out, pkg := carriedSetup(t)
			tc.tamper(t, out, pkg)
			before := testenv.ReadTree(t, out)
			tr.write("dir/c.txt", "charlie!", acTime("2024-06-03T12:00:00Z"))
			_, err := Build(context.Background(), acDumpConfig(tr.dir, out, acDay(4)))
			if !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			sameFiles(t, "after the build", testenv.ReadTree(t, out), before)
		})
	}
}

// TestCarriedPackageSwapped: a symbolic link to an outside file swapped
// in and out of a carried package's place while builds run (renameat2
// RENAME_EXCHANGE in a loop) is never published, nor are the outside
// file's bytes: each build publishes the package or fails.
func TestCarriedPackageSwapped(t *testing.T) {
	t.Parallel()
	tr, out, pkg := carriedSetup(t)
	want, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	secretDir := t.TempDir()
	testenv.WriteFile(t, secretDir, "secret.txt", strings.Repeat("s", len(want)))
	link := filepath.Join(filepath.Dir(pkg), ".swap")
	if err := os.Symlink(filepath.Join(secretDir, "secret.txt"), link); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			unix.Renameat2(unix.AT_FDCWD, link, unix.AT_FDCWD, pkg, unix.RENAME_EXCHANGE)
		}
	})
	published := 0
	for i := range 30 {
		fresh := t.TempDir()
		cfg := acDumpConfig(tr.dir, fresh, acDay(3))
		cfg.Changes.Previous = out
		if _, err := Build(context.Background(), cfg); err != nil {
			continue
		}
		published++
		got := filepath.Join(fresh, docsDir, filepath.Base(pkg))
		if st, err := os.Lstat(got); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("build %d published %v (%v), not the package", i, st.Mode(), err)
		}
		if b, _ := os.ReadFile(got); string(b) != string(want) {
			t.Fatalf("build %d published other bytes than the package", i)
		}
	}
	close(stop)
	wg.Wait()
	if published == 0 {
		t.Error("no build published: the race was not run")
	}
	t.Logf("%d of 30 builds published", published)
}

// TestCarriedManifestFromPackage: the manifest copy published beside a
// carried package is taken from the package checked, not from the file
// beside it in the previous output, which nothing checks.
func TestCarriedManifestFromPackage(t *testing.T) {
	t.Parallel()
	tr, out, pkg := carriedSetup(t)
	copyPath := strings.TrimSuffix(pkg, ".zip") + ".manifest.xml"
	want, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, []byte(strings.Replace(string(want), "new.txt", "forged", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.write("dir/c.txt", "charlie!", acTime("2024-06-03T12:00:00Z"))
	mustBuild(t, acDumpConfig(tr.dir, out, acDay(4)))
	if got, _ := os.ReadFile(copyPath); string(got) != string(want) {
		t.Errorf("the manifest copy published is not the package's:\n%s", got)
	}
}
