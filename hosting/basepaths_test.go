package hosting_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
)

// basePaths are the base paths every host's configuration is tested over:
// each reserved character (raw where a path may hold it, else
// percent-encoded), UTF-8 raw and percent-encoded, a space, a percent
// sign, quotes, braces, a backslash, an encoded slash, a deep path, and
// the other characters a path must percent-encode (issue 22, item 11).
func basePaths() []string {
	paths := []string{"/caf%C3%A9/", "/café/", "/a%20b/", "/a%25b/", "/a%24b/", "/a%22b/", "/a%5Cb/", "/a%7Bb%7D/", "/a%2Fb/", "/deep/er/",
		"/a%3Cb%3E/", "/a%7Cb%5E%60/"}
	for _, c := range ":@!&'()*+,;=" {
		paths = append(paths, "/a"+string(c)+"b/")
	}
	for _, c := range "?#[]" {
		paths = append(paths, fmt.Sprintf("/a%%%02Xb/", c))
	}
	return paths
}

// buildAt publishes the example collection at the base path p of
// http://127.0.0.1:port with the configuration of hosts, into the
// directory of www that a server which decodes paths maps p to. It returns
// the base URL as rsgen writes it, and the output directory.
func buildAt(t *testing.T, www string, port int, p string, hosts ...string) (base, out string) {
	t.Helper()
	b, err := generator.ParseBaseURL(fmt.Sprintf("http://127.0.0.1:%d%s", port, p))
	if err != nil {
		t.Fatal(err)
	}
	base = b.String()
	u, _ := url.Parse(base)
	out = filepath.Join(www, filepath.FromSlash(u.Path)) // the path decoded
	cfg := generator.Config{Source: "../testdata/site", Out: out, BaseURL: b, Hosts: hosts,
		At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return base, out
}

// A refusal is a base URL that the configuration of a host cannot serve,
// and what the refusal says.
type refusal struct{ base, want string }

// checkRefused checks that a build for hosts is refused, for each base
// URL of refusals, when it is configured, saying why, before anything is
// written.
func checkRefused(t *testing.T, hosts []string, refusals []refusal) {
	t.Helper()
	for _, tt := range refusals {
		b, err := generator.ParseBaseURL(tt.base)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		cfg := generator.Config{Source: "../testdata/site", Out: out, BaseURL: b, Hosts: hosts}
		_, err = generator.Build(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("base URL %s: %v, want a refusal that says %q", tt.base, err, tt.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("base URL %s: the refused build wrote %d files", tt.base, len(entries))
		}
	}
}
