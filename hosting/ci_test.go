package hosting_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/testenv"
)

// The CI recipes of docs/CI.md are files of docs/ci; gitlabRecipe is the
// GitLab Pages one, and the files named gitlab-* are not GitHub workflows.
const (
	ciDoc        = "../docs/CI.md"
	ciDir        = "../docs/ci"
	gitlabRecipe = "gitlab-pages.yml"
)

// actionLine is the rsgen build line that a step of a recipe using the
// GitHub Action (uses: rsgen/rsgen@…) runs: its inputs as arguments.
func actionLine(recipe string) string {
	_, step, ok := strings.Cut(recipe, "uses: rsgen/rsgen@")
	if !ok {
		return ""
	}
	_, with, _ := strings.Cut(step, "with:\n")
	line := "rsgen build"
	for l := range strings.Lines(with) {
		key, value, ok := strings.Cut(strings.TrimSpace(l), ": ")
		if !ok || !strings.HasPrefix(l, "          ") {
			break
		}
		switch key {
		case "source", "args":
			line += " " + value
		case "version":
		default:
			line += " --" + key + " " + value
		}
	}
	return line + "\n"
}

func ciRecipes(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(ciDir, "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 4 {
		t.Fatalf("%d recipes in %s, want at least 4", len(names), ciDir)
	}
	return names
}

// ciBlock is a code block of docs/CI.md marked "<!-- file: ci/NAME -->".
var ciBlock = regexp.MustCompile("(?s)<!-- file: ci/([^ ]+) -->\n```yaml\n(.*?)```\n")

// TestCIDocQuotesTheRecipes checks that docs/CI.md quotes every recipe of
// docs/ci exactly once, byte for byte, and nothing else as one: what a
// user copies is what the other tests check.
func TestCIDocQuotesTheRecipes(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(ciDoc)
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]int{}
	for _, m := range ciBlock.FindAllStringSubmatch(string(doc), -1) {
		name, block := m[1], m[2]
		quoted[name]++
		file, err := os.ReadFile(filepath.Join(ciDir, name))
		if err != nil {
			t.Errorf("docs/CI.md quotes %s: %v", name, err)
			continue
		}
		if block != string(file) {
			t.Errorf("docs/CI.md's copy of docs/ci/%s differs from the file: copy the file into it", name)
		}
	}
	for _, p := range ciRecipes(t) {
		if n := quoted[filepath.Base(p)]; n != 1 {
			t.Errorf("docs/CI.md quotes docs/ci/%s %d times, want once", filepath.Base(p), n)
		}
	}
}

// TestCIRecipesKeepTheGuards checks the rsgen line of every recipe: it
// reads the live build (--previous), survives the first deploy
// (--first-build-ok), and allows nothing that an unattended job must not.
func TestCIRecipesKeepTheGuards(t *testing.T) {
	t.Parallel()
	for _, p := range ciRecipes(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		if line := actionLine(string(data)); line != "" {
			lines = append(lines, line)
		}
		for line := range strings.Lines(string(data)) {
			if strings.Contains(line, "rsgen build ") {
				lines = append(lines, line)
			}
		}
		if len(lines) != 1 {
			t.Errorf("%s: %d rsgen build lines, want 1", p, len(lines))
			continue
		}
		args := strings.Fields(lines[0])
		for _, want := range []string{"--base-url", "--previous", "--first-build-ok", "--cache"} {
			if !slices.Contains(args, want) {
				t.Errorf("%s: rsgen build without %s", p, want)
			}
		}
		for _, bad := range []string{"--allow-empty", "--new-history", "--max-delete"} {
			if slices.Contains(args, bad) {
				t.Errorf("%s: an unattended rsgen build with %s", p, bad)
			}
		}
	}
}

// TestCIWorkflowsLint runs actionlint over the GitHub workflows.
func TestCIWorkflowsLint(t *testing.T) {
	t.Parallel()
	actionlint := testenv.Tool("RSGEN_ACTIONLINT", "actionlint")
	if actionlint == "" {
		testenv.Need(t, "actionlint", "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, or RSGEN_ACTIONLINT=PATH")
	}
	var workflows []string
	for _, p := range ciRecipes(t) {
		if !strings.HasPrefix(filepath.Base(p), "gitlab-") {
			workflows = append(workflows, p)
		}
	}
	out, err := exec.Command(actionlint, append([]string{"-no-color"}, workflows...)...).CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestCIGitLabRecipe parses the GitLab recipe as YAML (with Python's,
// which the AWS CLI's package brings) and checks the shape GitLab Pages
// needs: a job named pages in the deploy stage whose script runs rsgen
// and whose artifact is public.
func TestCIGitLabRecipe(t *testing.T) {
	t.Parallel()
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import yaml").Run() != nil {
		testenv.Need(t, "python3 with PyYAML", "apt-get install python3-yaml")
	}
	out, err := exec.Command(py, "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
		filepath.Join(ciDir, gitlabRecipe)).Output()
	if err != nil {
		t.Fatalf("%s is not YAML: %v\n%s", gitlabRecipe, err, exitStderr(err))
	}
	var cfg map[string]struct {
		Image     string
		Stage     string
		Script    []string
		Artifacts struct{ Paths []string }
		Cache     struct{ Paths []string }
		Rules     []map[string]any
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("%s: %v\n%s", gitlabRecipe, err, out)
	}
	job, ok := cfg["pages"]
	if !ok {
		t.Fatalf("%s has no job named pages: GitLab Pages publishes only that one", gitlabRecipe)
	}
	if job.Image == "" || job.Stage != "deploy" || len(job.Rules) == 0 {
		t.Errorf("pages: image %q, stage %q, %d rules; want an image, the deploy stage, rules", job.Image, job.Stage, len(job.Rules))
	}
	if !slices.Equal(job.Artifacts.Paths, []string{"public"}) {
		t.Errorf("pages: artifacts %q, want [public]", job.Artifacts.Paths)
	}
	if !slices.Contains(job.Cache.Paths, ".rsgen-cache") {
		t.Errorf("pages: cache %q lacks .rsgen-cache", job.Cache.Paths)
	}
	if !slices.ContainsFunc(job.Script, func(s string) bool { return strings.HasPrefix(s, "rsgen build public ") }) {
		t.Errorf("pages: no rsgen build public in the script %q", job.Script)
	}
}

func exitStderr(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

// TestCIRsyncRecipeMirrors runs the rsync lines of the rsync recipe to a
// local directory after a first build and after one that adds, updates
// and deletes files and drops a dump package: the directory must then be
// an exact copy of the output, nothing more.
func TestCIRsyncRecipeMirrors(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rsync"); err != nil {
		testenv.Need(t, "rsync", "apt-get install rsync")
	}
	data, err := os.ReadFile(filepath.Join(ciDir, "rsync-nginx.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var script []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "rsync ") {
			script = append(script, line)
		}
	}
	if len(script) != 2 {
		t.Fatalf("%d rsync lines in the recipe, want 2", len(script))
	}
	work, dest := t.TempDir(), t.TempDir()
	public := filepath.Join(work, "public")
	write(t, public, "index.html", "<!doctype html><title>home</title>")
	write(t, public, "old.txt", "deleted by the second build\n")
	write(t, public, "notes.txt", "updated by the second build\n")
	write(t, public, ".nojekyll", "")
	write(t, dest, "stale.txt", "not in the output\n")
	t1 := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := generator.Config{Source: public, Hosts: []string{hosting.Nginx}, At: t1, FixedTime: true}
	cfg.BaseURL, _ = generator.ParseBaseURL("https://example.org/")
	cfg.Dump.Enabled = true
	deploy := func() {
		t.Helper()
		if _, err := generator.Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-eu", "-c", strings.Join(script, "\n"))
		cmd.Dir, cmd.Env = work, append(os.Environ(), "DEST="+dest+"/")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got, want := testenv.ReadTree(t, dest), testenv.ReadTree(t, public); !maps.Equal(got, want) {
			t.Errorf("the copy differs from the output:\n got %q\nwant %q", got, want)
		}
	}
	deploy()
	prev := t.TempDir()
	copyDir(t, public, prev)
	write(t, public, "new.txt", "added\n")
	write(t, public, "notes.txt", "updated, and longer than before\n")
	if err := os.Remove(filepath.Join(public, "old.txt")); err != nil {
		t.Fatal(err)
	}
	cfg.At = t1.Add(time.Hour)
	cfg.Dump.Enabled = false
	cfg.Changes = generator.Changes{Previous: prev, Drop: []string{"resourcedump"}}
	deploy()
}
