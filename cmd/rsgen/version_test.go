package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildInfo reads the version from what Go records in a binary: the
// module version of go install …@vX.Y.Z, the commit and its time of a
// build in a checkout, "devel" and nothing else without either.
func TestBuildInfo(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want [3]string
	}{
		{"no build info", nil, [3]string{"devel", "", ""}},
		{"go install at a version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.1.0"}},
			[3]string{"v0.1.0", "", ""}},
		{"a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "0123abc", "vcs.time", "2026-11-27T14:00:00Z", "vcs.modified", "false")},
			[3]string{"devel", "0123abc", "2026-11-27T14:00:00Z"}},
		{"a checkout with changes", &debug.BuildInfo{GoVersion: "go1.26.8",
			Settings: vcs("vcs.revision", "0123abc", "vcs.modified", "true")},
			[3]string{"devel", "0123abc-dirty", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v, c, d := versionOf(tc.info); [3]string{v, c, d} != tc.want {
				t.Errorf("got %q, want %q", [3]string{v, c, d}, tc.want)
			}
		})
	}
}

// TestVersionStamps checks that the release build's stamps (-X
// main.stampVersion=… etc.) win over the build information, and how
// "rsgen version" prints them.
func TestVersionStamps(t *testing.T) {
	defer func(v, c, d string) { stampVersion, stampCommit, stampDate = v, c, d }(stampVersion, stampCommit, stampDate)
	stampVersion, stampCommit, stampDate = "v0.1.0", "0123abc", "2026-11-27T14:00:00Z"
	var b strings.Builder
	printVersion(&b)
	want := "rsgen v0.1.0\ncommit: 0123abc\nbuilt:  2026-11-27T14:00:00Z\ngo:     " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
