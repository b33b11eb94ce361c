package release_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// actionRun is a run of the Action's script: its exit code, its output,
// and the outputs it gave (GITHUB_OUTPUT).
type actionRun struct {
	code    int
	log     string
	outputs map[string]string
}

// runAction runs .github/action/run.sh as action.yml does, with the
// inputs, on a runner whose tool cache is cache, downloading the releases
// from releases.
func runAction(t *testing.T, releases, cache string, inputs map[string]string) actionRun {
	t.Helper()
	tmp := t.TempDir()
	outputs, path := filepath.Join(tmp, "github_output"), filepath.Join(tmp, "github_path")
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	cmd := exec.Command("bash", filepath.Join(root, ".github", "action", "run.sh"))
	cmd.Env = append(os.Environ(), "RUNNER_OS=Linux", "RUNNER_ARCH="+arch, "RUNNER_TOOL_CACHE="+cache, "RUNNER_TEMP="+tmp,
		"GITHUB_OUTPUT="+outputs, "GITHUB_PATH="+path, "RSGEN_RELEASES="+releases)
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := actionRun{log: out.String(), outputs: map[string]string{}}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(outputs)
	for line := range strings.Lines(string(data)) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		r.outputs[k] = v
	}
	return r
}

// readString returns the content of the file at path.
func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// testAction runs the Action's script against the snapshot served from
// 127.0.0.1, as GitHub serves a release: it installs rsgen into the tool
// cache and runs it, twice, giving the counts of changes; a tampered
// archive or a wrong checksums.txt stops it before it runs anything.
func testAction(t *testing.T, rel snapshot) {
	// tamper, if set, changes a file of the release as it is served.
	var tamper func(name string, data []byte) []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/"+rel.version+"/")
		data, err := os.ReadFile(filepath.Join(rel.dist, filepath.Base(name)))
		if !ok || err != nil {
			http.NotFound(w, r)
			return
		}
		if tamper != nil {
			data = tamper(name, data)
		}
		w.Write(data)
	}))
	defer srv.Close()

	site := filepath.Join(t.TempDir(), "site")
	command(t, "", nil, "cp", "-R", filepath.Join(root, "testdata", "site"), site)
	work := t.TempDir()
	cache := filepath.Join(work, "toolcache")
	inputs := map[string]string{"version": rel.version, "source": site, "base-url": "https://example.org/",
		"out": filepath.Join(work, "first"), "args": "--at 2024-06-01T00:00:00Z"}
	first := runAction(t, srv.URL, cache, inputs)
	if first.code != 0 || first.outputs["exit-code"] != "0" || first.outputs["version"] != rel.version {
		t.Fatalf("first run: exit %d, outputs %q\n%s", first.code, first.outputs, first.log)
	}
	if !strings.Contains(first.log, "verified against checksums.txt") || first.outputs["created"] != "" {
		t.Errorf("first run: outputs %q, log:\n%s", first.outputs, first.log)
	}
	installed := filepath.Join(cache, "rsgen", strings.TrimPrefix(rel.version, "v"), runtime.GOARCH)
	if _, err := os.Stat(filepath.Join(installed, "rsgen")); err != nil {
		t.Errorf("rsgen not in the tool cache: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "first", "resourcesync", "resourcelist.xml")); err != nil {
		t.Errorf("the first run published no Resource List: %v", err)
	}

	// One file added, one changed, one deleted: the second run reports them.
	if err := os.WriteFile(filepath.Join(site, "added.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte("<!doctype html><title>changed</title>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(site, "data", "holdings.csv")); err != nil {
		t.Fatal(err)
	}
	inputs["out"], inputs["previous"] = filepath.Join(work, "second"), filepath.Join(work, "first")
	inputs["args"] = "--at 2024-06-02T00:00:00Z"
	second := runAction(t, srv.URL, cache, inputs)
	want := map[string]string{"exit-code": "0", "created": "1", "updated": "1", "deleted": "1", "version": rel.version}
	for k, v := range want {
		if second.outputs[k] != v {
			t.Errorf("second run: output %s=%q, want %q\n%s", k, second.outputs[k], v, second.log)
		}
	}
	if !strings.Contains(second.log, "in the tool cache") {
		t.Errorf("the second run did not use the tool cache:\n%s", second.log)
	}

	// A failing build fails the step with rsgen's exit code, and says it.
	inputs["args"] = "--no-such-flag"
	failed := runAction(t, srv.URL, cache, inputs)
	if failed.code != 2 || failed.outputs["exit-code"] != "2" {
		t.Errorf("a usage error: exit %d, outputs %q, want 2\n%s", failed.code, failed.outputs, failed.log)
	}

	for _, tc := range []struct {
		name   string
		tamper func(name string, data []byte) []byte
	}{
		{"a tampered archive", func(name string, data []byte) []byte {
			if strings.HasSuffix(name, ".tar.gz") {
				data = bytes.Clone(data)
				data[len(data)/2] ^= 1
			}
			return data
		}},
		{"a wrong checksum", func(name string, data []byte) []byte {
			if name != "checksums.txt" {
				return data
			}
			var b bytes.Buffer
			for line := range strings.Lines(string(data)) {
				d := "0" // the first digit of each SHA-256, changed
				if line[0] == '0' {
					d = "1"
				}
				b.WriteString(d + line[1:])
			}
			return b.Bytes()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tamper = tc.tamper
			defer func() { tamper = nil }()
			fresh := filepath.Join(t.TempDir(), "toolcache")
			inputs["out"] = filepath.Join(t.TempDir(), "out")
			r := runAction(t, srv.URL, fresh, inputs)
			if r.code == 0 || !strings.Contains(r.log, "checksum mismatch") || !strings.Contains(r.log, "not installed") {
				t.Errorf("exit %d, want a failure saying checksum mismatch:\n%s", r.code, r.log)
			}
			if _, err := os.Stat(fresh); !os.IsNotExist(err) {
				t.Errorf("the tool cache was written: %v", err)
			}
			if _, err := os.Stat(inputs["out"]); !os.IsNotExist(err) {
				t.Error("rsgen ran")
			}
		})
	}
}

// TestActionCounts runs the Action's script against a release of rsgen
// built here (the host's archive and its checksums.txt, without
// GoReleaser): the counts of changes are outputs with --dry-run too, the
// pull-request check docs/CI.md suggests, as with a build that publishes.
func TestActionCounts(t *testing.T) {
	testenv.LongTest(t, "builds, strips and packs rsgen")
	const version = "v0.0.1"
	dist := filepath.Join(t.TempDir(), version)
	bin := filepath.Join(t.TempDir(), "rsgen")
	// Stripped, as the release's binaries are (.goreleaser.yaml): a third
	// smaller, for tar to compress and the Action to download and unpack.
	command(t, root, []string{"CGO_ENABLED=0"}, "go", "build", "-ldflags=-s -w", "-o", bin, "./cmd/rsgen")
	archive := "rsgen_0.0.1_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	if err := os.Mkdir(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	command(t, "", nil, "tar", "-czf", filepath.Join(dist, archive), "-C", filepath.Dir(bin), "rsgen")
	data, err := os.ReadFile(filepath.Join(dist, archive))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	testenv.WriteFile(t, dist, "checksums.txt", hex.EncodeToString(sum[:])+"  "+archive+"\n")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(dist))))
	defer srv.Close()

	site, out := filepath.Join(t.TempDir(), "site"), filepath.Join(t.TempDir(), "out")
	testenv.WriteFile(t, site, "a.txt", "a\n")
	inputs := map[string]string{"version": version, "source": site, "base-url": "https://example.org/", "out": out,
		"args": "--at 2024-06-01T00:00:00Z"}
	cache := filepath.Join(t.TempDir(), "toolcache")
	if r := runAction(t, srv.URL, cache, inputs); r.code != 0 {
		t.Fatalf("first build: exit %d\n%s", r.code, r.log)
	}
	testenv.WriteFile(t, site, "b.txt", "b\n")
	// A checksums.txt that lists the archive twice, with two digests, one
	// of them right, is refused as such.
	sums := readString(t, filepath.Join(dist, "checksums.txt"))
	testenv.WriteFile(t, dist, "checksums.txt", strings.Repeat("0", 64)+"  "+archive+"\n"+sums)
	if r := runAction(t, srv.URL, filepath.Join(t.TempDir(), "toolcache"), inputs); r.code == 0 || !strings.Contains(r.log, "two different SHA-256") {
		t.Errorf("a checksums.txt listing the archive twice: exit %d\n%s", r.code, r.log)
	}
	testenv.WriteFile(t, dist, "checksums.txt", sums)

	inputs["previous"] = out
	for _, args := range []string{"--dry-run --at 2024-06-02T00:00:00Z", "--at 2024-06-02T00:00:00Z"} {
		inputs["args"] = args
		r := runAction(t, srv.URL, cache, inputs)
		want := map[string]string{"exit-code": "0", "created": "1", "updated": "0", "deleted": "0"}
		for k, v := range want {
			if r.outputs[k] != v {
				t.Errorf("%s: output %s=%q, want %q\n%s", args, k, r.outputs[k], v, r.log)
			}
		}
	}
}
