package release_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestReleaseWorkflowLint runs actionlint over the release workflow, as
// hosting's tests do over the recipes of docs/ci.
func TestReleaseWorkflowLint(t *testing.T) {
	actionlint := testenv.Tool("RSGEN_ACTIONLINT", "actionlint")
	if actionlint == "" {
		testenv.Need(t, "actionlint", "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, or RSGEN_ACTIONLINT=PATH")
	}
	out, err := exec.Command(actionlint, "-no-color", filepath.Join(root, ".github", "workflows", "release.yml")).CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestActionMetadata checks action.yml, which actionlint does not read: a
// composite action with the inputs and outputs docs/INSTALL.md names, each
// input passed to the script, each output taken from it.
func TestActionMetadata(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import yaml").Run() != nil {
		testenv.Need(t, "python3 with PyYAML", "apt-get install python3-yaml")
	}
	out, err := exec.Command(py, "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
		filepath.Join(root, "action.yml")).Output()
	if err != nil {
		t.Fatalf("action.yml is not YAML: %v", err)
	}
	var action struct {
		Inputs  map[string]struct{ Required bool }
		Outputs map[string]struct{ Value string }
		Runs    struct {
			Using string
			Steps []struct {
				ID, Shell, Run string
				Env            map[string]string
			}
		}
	}
	if err := json.Unmarshal(out, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 {
		t.Fatalf("runs: %+v, want one composite step", action.Runs)
	}
	step := action.Runs.Steps[0]
	if step.Shell != "bash" || !strings.Contains(step.Run, "$GITHUB_ACTION_PATH/.github/action/run.sh") {
		t.Errorf("the step runs %q with %q, want .github/action/run.sh with bash", step.Run, step.Shell)
	}
	for _, in := range []string{"version", "source", "base-url", "out", "previous", "args"} {
		if _, ok := action.Inputs[in]; !ok {
			t.Errorf("no input %s", in)
		}
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(in, "-", "_"))
		if !strings.Contains(step.Env[env], "inputs."+in) {
			t.Errorf("%s=%q, want the input %s", env, step.Env[env], in)
		}
	}
	if len(action.Inputs) != 6 || !action.Inputs["source"].Required {
		t.Errorf("inputs %v: want six, source required", action.Inputs)
	}
	var outputs []string
	for name, o := range action.Outputs {
		outputs = append(outputs, name)
		if o.Value != "${{ steps."+step.ID+".outputs."+name+" }}" {
			t.Errorf("output %s: value %q, want the step's", name, o.Value)
		}
	}
	slices.Sort(outputs)
	if want := []string{"created", "deleted", "exit-code", "updated", "version"}; !slices.Equal(outputs, want) {
		t.Errorf("outputs %q, want %q", outputs, want)
	}
}
