package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The environment variables rsgen reads: cleared for every test, so that
// the caller's environment does not change the results.
var rsgenEnv = []string{"RSGEN_BASE_URL", "RSGEN_DOCS_URL", "RSGEN_HASH", envSourceDateEpoch, "RSGEN_PREVIOUS", "RSGEN_CACHE", "RSGEN_HUB", "RSGEN_NOTIFY_STATE"}

func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range rsgenEnv {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// siteMtime is the modification time of the files of the example
// collection copied for a test (testenv.CopySite).
var siteMtime = time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)

// treeState maps every path under dir to its mode and content.
func treeState(t testing.TB, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		st[rel] = v
		return nil
	})
	return st
}

func sameTree(t testing.TB, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s changed or vanished", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

// messageStyle is how every error and hint line reads: lower case (but a
// word in capitals such as SOURCE), no final period.
var messageStyle = regexp.MustCompile(`^rsgen: (error|hint|skipped|notice|warning): ([^A-Z]|[A-Z]{2,}\b).*[^.]$`)

func checkMessages(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if strings.HasPrefix(line, "rsgen: error:") || strings.HasPrefix(line, "rsgen: hint:") {
			if !messageStyle.MatchString(line) {
				t.Errorf("stderr line %q: messages are lower case, without a final period", line)
			}
		}
	}
}

// The build's usage errors and summaries are testdata/script/build_usage.txtar.
