package hosting_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/validate"
)

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// build publishes the example collection into a new directory, served at
// base, with the configuration of hosts.
func build(t *testing.T, base string, hosts ...string) string {
	t.Helper()
	out := t.TempDir()
	b, err := generator.ParseBaseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := generator.Config{Source: "../testdata/site", Out: out, BaseURL: b, Hosts: hosts,
		At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return out
}

func nginxBinary(t *testing.T) string {
	p := testenv.Tool("", "nginx", "/usr/sbin/nginx")
	if p == "" {
		testenv.Need(t, "nginx", "apt-get install nginx-light")
	}
	return p
}

// quote quotes s for nginx's configuration.
func quote(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }

// startNginx checks (nginx -t), then starts, a real nginx that serves
// root on 127.0.0.1:port with the snippet included in its server block,
// and waits until it answers. It is stopped at the end of the test.
func startNginx(t *testing.T, root, snippet string, port int) {
	t.Helper()
	bin := nginxBinary(t)
	prefix := t.TempDir()
	types := "types { text/html html; text/xml xml; text/plain txt; }"
	if _, err := os.Stat("/etc/nginx/mime.types"); err == nil {
		types = "include /etc/nginx/mime.types;"
	}
	var temps strings.Builder
	for _, k := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&temps, "    %s_temp_path %s;\n", k, filepath.Join(prefix, k))
	}
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %s;
error_log stderr warn;
events { worker_connections 64; }
http {
    %s
    default_type application/octet-stream;
    access_log off;
%s    server {
        listen 127.0.0.1:%d;
        root %s;
        include %s;
    }
}
`, filepath.Join(prefix, "nginx.pid"), types, temps.String(), port, quote(root), quote(snippet))
	confPath := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-t", "-p", prefix, "-c", confPath, "-e", "stderr").CombinedOutput(); err != nil {
		data, _ := os.ReadFile(snippet)
		t.Fatalf("nginx -t: %v\n%s\nthe snippet:\n%s", err, out, data)
	}
	cmd := exec.Command(bin, "-p", prefix, "-c", confPath, "-e", "stderr")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	client := &http.Client{Timeout: 5 * time.Second}
	for range 100 {
		if resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port)); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nginx did not answer on 127.0.0.1:%d:\n%s", port, stderr.String())
}

// TestNginxSnippet starts a real nginx on 127.0.0.1 with the snippet rsgen
// writes included in its server block, and checks what it serves, then
// validates the site through it.
func TestNginxSnippet(t *testing.T) {
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	out := build(t, base, hosting.Nginx)
	startNginx(t, out, filepath.Join(out, hosting.NginxConf), port)
	client := &http.Client{Timeout: 5 * time.Second}
	link := `<` + base + `resourcesync/capabilitylist.xml>; rel="resourcesync"`
	tests := []struct {
		path, contentType string
		status            int
	}{
		{".well-known/resourcesync", "application/xml", 200},
		{"resourcesync/capabilitylist.xml", "application/xml", 200},
		{"resourcesync/resourcelist.xml", "application/xml", 200},
		{"resourcesync/index.html", "text/html", 200},
		{"resourcesync/", "text/html", 200},
		{hosting.NginxConf, "", 404},
		{"resourcesync/.rsgen-manifest.json", "", 404}, // rsgen's own state
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			checkServed(t, client, base+tt.path, tt.status, tt.contentType, link)
		})
	}
	rep, err := validate.Site(context.Background(), base, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid(true) || len(rep.Documents) != 3 {
		t.Errorf("the site served by nginx: %d documents, findings %v", len(rep.Documents), rep.Findings)
	}
}

// The snippet serves a site at any base path a URL can have (basePaths).
// For each, a real nginx takes the snippet (nginx -t), serves
// the Source Description and the Capability List as XML with the Link
// header, and does not serve the snippet. A path nginx cannot be told
// ("$": add_header has no escape for it) is refused when the build is
// configured, before anything is written (issue 22, item 11: ";" and "$"
// failed nginx -t; /caf%C3%A9/ matched no location).
func TestNginxSnippetBasePaths(t *testing.T) {
	nginxBinary(t)
	client := &http.Client{Timeout: 5 * time.Second}
	for _, p := range basePaths() {
		t.Run(p, func(t *testing.T) {
			port := freePort(t)
			www := t.TempDir()
			base, out := buildAt(t, www, port, p, hosting.Nginx)
			startNginx(t, www, filepath.Join(out, hosting.NginxConf), port)
			link := `<` + base + `resourcesync/capabilitylist.xml>; rel="resourcesync"`
			checkServed(t, client, base+".well-known/resourcesync", 200, "application/xml", link)
			checkServed(t, client, base+"resourcesync/capabilitylist.xml", 200, "application/xml", link)
			resp, err := client.Get(base + hosting.NginxConf)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 404 && resp.StatusCode != 403 {
				t.Errorf("the snippet itself: HTTP %d, want 404 or 403", resp.StatusCode)
			}
		})
	}

	checkRefused(t, []string{hosting.Nginx}, []refusal{
		{"https://example.org/a$b/", `holds a "$", which nginx reads as a variable in the Link header and has no escape for: write it %24`},
		{"https://example.org/a%0Ab/", "holds a control character once decoded"},
		{"https://example.org/a/%2E%2E/b/", `has a ".." segment once decoded, which nginx resolves`},
	})
}
