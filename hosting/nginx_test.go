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
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	t.Skip("nginx is not installed (.ci/run installs it)")
	return ""
}

// TestNginxSnippet starts a real nginx on 127.0.0.1 with the snippet rsgen
// writes included in its server block, and checks what it serves, then
// validates the site through it.
func TestNginxSnippet(t *testing.T) {
	bin := nginxBinary(t)
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	out := build(t, base, hosting.Nginx)
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
`, filepath.Join(prefix, "nginx.pid"), types, temps.String(), port, out, filepath.Join(out, hosting.NginxConf))
	confPath := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
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
	ready := false
	for range 100 {
		if resp, err := client.Get(base); err == nil {
			resp.Body.Close()
			ready = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !ready {
		t.Fatalf("nginx did not answer on %s:\n%s", base, stderr.String())
	}
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
