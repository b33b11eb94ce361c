package testenv

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Python is the interpreter the official validator runs with: Debian's,
// which python3-lxml installs into.
const Python = "/usr/bin/python3"

// findOfficial looks for the official validator once: starting Python
// costs more than most of the checks it makes.
var findOfficial = sync.OnceValues(func() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(filepath.Dir(root), "shared", "tools", "rs-validate.py")
	if _, err := os.Stat(script); err != nil {
		return "", errors.New("the official validator is not beside the checkout (../shared/tools/rs-validate.py)")
	}
	if err := exec.Command(Python, "-c", "import lxml").Run(); err != nil {
		return "", errors.New(Python + " with lxml (Debian python3-lxml) is not installed")
	}
	return script, nil
})

// moduleRoot is the directory of the go.mod above the working directory,
// which go test sets to the package's directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Official returns the command that runs the official validator,
// rs-validate.py, which sits in ../shared/tools beside the checkout (as in
// CI) and needs Python with lxml; or nil where it cannot run, a newcomer's
// machine with Go alone, saying so in the test's log. In CI (CI=true),
// which installs what it needs, a missing validator fails t.
func Official(t testing.TB) []string {
	t.Helper()
	script, err := findOfficial()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI must run it", err)
		}
		t.Logf("%v: not checked with the official validator", err)
		return nil
	}
	return []string{Python, script}
}

// officialMain runs rs-validate.py's main once per line of stdin, a JSON
// list of its arguments, and answers each with a line of JSON: the exit
// code and what it printed.
const officialMain = `
import contextlib, importlib.util, io, json, sys, traceback
spec = importlib.util.spec_from_file_location("rs_validate", sys.argv[1])
rv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rv)
for line in sys.stdin:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = rv.main(json.loads(line))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        except Exception:
            traceback.print_exc()
            code = 1
    sys.__stdout__.write(json.dumps({"code": code, "out": out.getvalue()}) + "\n")
    sys.__stdout__.flush()
`

// officialProcess is the one Python of a test binary that runs the
// official validator for RunOfficial: Python, lxml and the schemas cost
// more to start than most checks, and tests run it dozens of times. It
// ends when the test binary does, which closes its stdin.
type officialProcess struct {
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Reader
}

var startOfficial = sync.OnceValues(func() (*officialProcess, error) {
	script, err := findOfficial()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(Python, "-c", officialMain, script)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &officialProcess{in: in, out: bufio.NewReader(out)}, nil
})

// RunOfficial runs the official validator with args, as
// "python3 rs-validate.py args..." in the working directory would, and
// returns what it printed and its exit code. Tests call it where Official
// says the validator can run.
func RunOfficial(t testing.TB, args ...string) (out string, code int) {
	t.Helper()
	p, err := startOfficial()
	if err != nil {
		t.Fatal(err)
	}
	req, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var resp struct {
		Code int
		Out  string
	}
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		t.Fatalf("the official validator: %v", err)
	}
	line, err := p.out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &resp)
	}
	if err != nil {
		t.Fatalf("the official validator: %v", err)
	}
	return resp.Out, resp.Code
}

// ReadTree reads every file under dir into a map by slash-separated path.
func ReadTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
