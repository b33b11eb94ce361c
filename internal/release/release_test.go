package release_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// goreleaserVersion is the pinned GoReleaser, as .ci/run and release.yml
// install it.
const goreleaserVersion = "github.com/goreleaser/goreleaser/v2@v2.15.1"

// root is the checkout, from this package's directory.
const root = "../.."

// command runs name with args in dir and returns its stdout, failing t
// with its output if it fails.
func command(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

// snapshot is a GoReleaser snapshot of the checkout.
type snapshot struct {
	repo    string // the copy of the checkout it was made from
	dist    string // its dist/
	version string // v0.0.0-snapshot-0123abcd
	commit  string // the copy's commit
	date    string // its time, RFC 3339
}

// copyRepo copies the checkout's files (tracked or not, but not ignored:
// what a commit of the working tree would hold) to dir and commits them,
// dated date: two copies are one commit, whatever their directory.
func copyRepo(t *testing.T, dir, date string) {
	t.Helper()
	names := command(t, root, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for name := range strings.SplitSeq(strings.TrimSuffix(names, "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date, "GIT_AUTHOR_NAME=rsgen", "GIT_COMMITTER_NAME=rsgen",
		"GIT_AUTHOR_EMAIL=rsgen@example.org", "GIT_COMMITTER_EMAIL=rsgen@example.org", "GIT_CONFIG_GLOBAL=/dev/null"}
	command(t, dir, env, "git", "init", "-q", "-b", "main")
	command(t, dir, env, "git", "add", "-A")
	command(t, dir, env, "git", "commit", "-q", "--no-gpg-sign", "-m", "snapshot")
	// Without a remote, GoReleaser knows no commit (it says "none").
	command(t, dir, env, "git", "remote", "add", "origin", "https://github.com/rsgen/rsgen.git")
}

// makeSnapshot copies the checkout into dir and makes the snapshot
// release of .goreleaser.yaml there, as docs/INSTALL.md says.
func makeSnapshot(t *testing.T, goreleaser, dir, date string) snapshot {
	t.Helper()
	copyRepo(t, dir, date)
	command(t, dir, nil, goreleaser, "check")
	command(t, dir, nil, goreleaser, "release", "--snapshot", "--clean")
	s := snapshot{repo: dir, dist: filepath.Join(dir, "dist"), date: date}
	s.commit = strings.TrimSpace(command(t, dir, nil, "git", "rev-parse", "HEAD"))
	var meta struct{ Version string }
	readJSON(t, filepath.Join(s.dist, "metadata.json"), &meta)
	s.version = "v" + meta.Version
	return s
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// binaries are the binaries of a snapshot by GOOS/GOARCH, from its
// artifacts.json.
func binaries(t *testing.T, s snapshot) map[string]string {
	t.Helper()
	var artifacts []struct{ Type, Path, Goos, Goarch string }
	readJSON(t, filepath.Join(s.dist, "artifacts.json"), &artifacts)
	bins := map[string]string{}
	for _, a := range artifacts {
		if a.Type == "Binary" {
			bins[a.Goos+"/"+a.Goarch] = filepath.Join(s.repo, a.Path)
		}
	}
	return bins
}

var platforms = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}

// TestRelease makes the snapshot release twice, from two copies of the
// checkout in two directories, and checks what a release gives: six
// archives and checksums.txt, byte-identical from one build to the other;
// a binary that says its version; the container image built from it; the
// GitHub Action installing it.
func TestRelease(t *testing.T) {
	testenv.LongTest(t, "a GoReleaser snapshot of six platforms, made twice")
	goreleaser := testenv.Tool("RSGEN_GORELEASER", "goreleaser")
	if goreleaser == "" {
		testenv.Need(t, "goreleaser", "go install "+goreleaserVersion+", or RSGEN_GORELEASER=PATH")
	}
	// The commit's time in UTC, as GoReleaser's CommitDate and release.yml give it.
	date := strings.TrimSpace(command(t, root, []string{"TZ=UTC"}, "git", "log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ"))
	rel := makeSnapshot(t, goreleaser, t.TempDir(), date)

	t.Run("archives", func(t *testing.T) { testArchives(t, rel) })
	t.Run("reproducible", func(t *testing.T) {
		again := makeSnapshot(t, goreleaser, t.TempDir(), date)
		want, got := binaries(t, rel), binaries(t, again)
		for _, p := range platforms {
			if a, b := fileSum(t, want[p]), fileSum(t, got[p]); a != b {
				t.Errorf("%s: two snapshots of one commit differ: %s and %s", p, a, b)
			}
		}
		sums := func(s snapshot) string { b, _ := os.ReadFile(filepath.Join(s.dist, "checksums.txt")); return string(b) }
		if sums(rel) != sums(again) {
			t.Errorf("two snapshots of one commit give different archives:\n%s\n%s", sums(rel), sums(again))
		}
	})
	t.Run("version", func(t *testing.T) {
		bin := binaries(t, rel)[runtime.GOOS+"/"+runtime.GOARCH]
		got := command(t, "", nil, bin, "version")
		for _, want := range []string{"rsgen " + rel.version + "\n", "commit: " + rel.commit + "\n", "built:  " + date + "\n", "go:     go"} {
			if !strings.Contains(got, want) {
				t.Errorf("rsgen version says\n%s\nwant a line %q", got, want)
			}
		}
	})
	t.Run("go install", func(t *testing.T) { testGoInstall(t, rel) })
	t.Run("image", func(t *testing.T) { testImage(t, rel) })
	t.Run("action", func(t *testing.T) { testAction(t, rel) })
}

// testGoInstall tags the snapshot's commit with the newest release of
// CHANGELOG.md and installs it as a user would, "go install
// github.com/rsgen/rsgen/cmd/rsgen@vX.Y.Z", with git fetching the module
// from the copy in place of GitHub (and its dependencies from the module
// proxy as usual): Go makes the module from the tag as the proxy would
// (a file name a module cannot hold would fail here), and the binary
// says its version.
func testGoInstall(t *testing.T, rel snapshot) {
	version := newestRelease(t)
	command(t, rel.repo, nil, "git", "tag", version)
	tmp := t.TempDir()
	gitconfig := filepath.Join(tmp, "gitconfig")
	config := "[url \"file://" + rel.repo + "\"]\n\tinsteadOf = https://github.com/rsgen/rsgen\n"
	if err := os.WriteFile(gitconfig, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "bin")
	command(t, tmp, []string{"GIT_CONFIG_GLOBAL=" + gitconfig, "GIT_ALLOW_PROTOCOL=file", "GOPRIVATE=github.com/rsgen/rsgen",
		"GOMODCACHE=" + filepath.Join(tmp, "mod"), "GOFLAGS=-modcacherw", "GOBIN=" + bin, "GOWORK=off"},
		"go", "install", "github.com/rsgen/rsgen/cmd/rsgen@"+version)
	got := command(t, "", nil, filepath.Join(bin, "rsgen"), "version")
	if want := "rsgen " + version + "\ncommit: unknown\nbuilt:  unknown\ngo:     go"; !strings.HasPrefix(got, want) {
		t.Errorf("rsgen version of go install …@%s says\n%s\nwant it to start\n%s", version, got, want)
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// testArchives checks the six archives of a snapshot: each listed in
// checksums.txt with its SHA-256, each holding the binary, LICENSE,
// README.md, CHANGELOG.md and the manual page rsgen.1.
func testArchives(t *testing.T, rel snapshot) {
	sums, err := os.ReadFile(filepath.Join(rel.dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for line := range strings.Lines(string(sums)) {
		sum, name, _ := strings.Cut(strings.TrimSpace(line), "  ")
		listed[name] = sum
	}
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		ext, exe := ".tar.gz", "rsgen"
		if goos == "windows" {
			ext, exe = ".zip", "rsgen.exe"
		}
		name := fmt.Sprintf("rsgen_%s_%s_%s%s", strings.TrimPrefix(rel.version, "v"), goos, goarch, ext)
		path := filepath.Join(rel.dist, name)
		if got := fileSum(t, path); listed[name] != got {
			t.Errorf("checksums.txt gives %s for %s, whose SHA-256 is %s", listed[name], name, got)
		}
		members := archiveMembers(t, path)
		for _, want := range []string{exe, "LICENSE", "README.md", "CHANGELOG.md", "rsgen.1"} {
			if !slices.Contains(members, want) {
				t.Errorf("%s lacks %s: it holds %q", name, want, members)
			}
		}
		delete(listed, name)
	}
	if len(listed) != 0 {
		t.Errorf("checksums.txt lists more than the six archives: %q", listed)
	}
}

func archiveMembers(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return names
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		names = append(names, h.Name)
	}
}
