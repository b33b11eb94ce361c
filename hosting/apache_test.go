package hosting_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
)

// apacheModules is where Debian's apache2 keeps its modules.
const apacheModules = "/usr/lib/apache2/modules"

func apacheBinary(t *testing.T) string {
	for _, p := range []string{"/usr/sbin/apache2", "/usr/sbin/httpd"} {
		if _, err := os.Stat(p); err == nil {
			if _, err := os.Stat(filepath.Join(apacheModules, "mod_headers.so")); err == nil {
				return p
			}
		}
	}
	t.Skip("apache2 is not installed (.ci/run installs it)")
	return ""
}

// startApache checks (apache2 -t), then starts, a real Apache that serves
// www on 127.0.0.1:port, reading the .htaccess files in it
// (AllowOverride FileInfo AuthConfig, as docs/HOSTING.md asks), in a
// directory of its own, and waits until it answers. It is stopped at the
// end of the test. As root, it serves as nobody: www must be readable by
// all.
func startApache(t *testing.T, www string, port int) {
	t.Helper()
	bin := apacheBinary(t)
	prefix := t.TempDir()
	var runAs string
	if os.Geteuid() == 0 {
		group := "nogroup"
		if _, err := user.LookupGroup(group); err != nil {
			group = "nobody"
		}
		runAs = "User nobody\nGroup " + group + "\n"
	}
	var modules strings.Builder
	for _, m := range []string{"mpm_prefork", "authz_core", "headers", "mime", "dir"} {
		fmt.Fprintf(&modules, "LoadModule %s_module %s\n", m, filepath.Join(apacheModules, "mod_"+m+".so"))
	}
	// .xml as text/xml, unlike /etc/mime.types: application/xml then
	// comes from the .htaccess alone.
	types := "AddType text/html .html\nAddType text/xml .xml\n"
	if _, err := os.Stat("/etc/mime.types"); err == nil {
		types = "TypesConfig /etc/mime.types\n" + types
	}
	// AllowEncodedSlashes On: a base path with %2F is then served from the
	// directories it decodes to, as nginx does (Apache's default is a 404).
	conf := fmt.Sprintf(`ServerRoot "%[1]s"
DefaultRuntimeDir "%[1]s"
PidFile "%[1]s/httpd.pid"
ErrorLog "%[1]s/error.log"
LogLevel warn authz_core:crit
Listen 127.0.0.1:%[2]d
ServerName 127.0.0.1
%[3]s%[4]s%[5]sDocumentRoot "%[6]s"
AllowEncodedSlashes On
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "%[6]s">
    AllowOverride FileInfo AuthConfig
    Require all granted
</Directory>
<FilesMatch "^\.ht">
    Require all denied
</FilesMatch>
DirectoryIndex index.html
`, prefix, port, modules.String(), runAs, types, www)
	confPath := filepath.Join(prefix, "httpd.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-t", "-f", confPath).CombinedOutput(); err != nil {
		t.Fatalf("apache2 -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-X", "-f", confPath) // one process, in the foreground
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			t.Logf("Apache's error log:\n%s", log)
		}
	})
	client := &http.Client{Timeout: 5 * time.Second}
	for range 100 {
		if resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port)); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
	t.Fatalf("Apache did not answer on 127.0.0.1:%d:\n%s", port, log)
}

// worldReadableDir returns a new directory that a server running as
// nobody can read, removed at the end of the test.
func worldReadableDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "rsgen-apache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The .htaccess serves a site at any base path a URL can have (basePaths):
// one real Apache serves the example collection built at each, and for
// each serves the Source Description and the Capability List as XML with
// the Link header, and refuses rsgen's configuration for other hosts and
// its own state. Before, the rules held the path percent-encoded, which
// Apache matches decoded (/caf%C3%A9/ matched nothing), unescaped in a
// string and a regular expression (a ' or a ( broke them), and a % in the
// Link header, which Apache read as a format: every response of the
// directory was an error 500 (issue 22, item 11).
func TestHTAccessBasePaths(t *testing.T) {
	apacheBinary(t)
	port := freePort(t)
	www := worldReadableDir(t)
	paths := append(basePaths(), "/x/a$b/", "/x/a${b}/") // which nginx refuses
	bases := map[string]string{}
	for _, p := range paths {
		bases[p], _ = buildAt(t, www, port, p, hosting.Apache, hosting.S3)
	}
	// A site of two sets, at a base path with a character of every kind
	// the .htaccess escapes, whose sets' documents are one directory
	// deeper.
	const setsPath = "/sets%20(caf%C3%A9)%25%24%23'%22%5C/"
	docs, err := generator.ParseBaseURL(fmt.Sprintf("http://127.0.0.1:%d%s", port, setsPath))
	if err != nil {
		t.Fatal(err)
	}
	du, _ := url.Parse(docs.String())
	site := generator.Site{Out: filepath.Join(www, filepath.FromSlash(du.Path)), DocsURL: docs, Hosts: []string{hosting.Apache}}
	for _, name := range []string{"articles", "data"} {
		c := generator.Config{Set: name, Source: filepath.Join("../testdata/site", name)}
		c.BaseURL, _ = generator.ParseBaseURL(docs.String() + name + "/")
		site.Sets = append(site.Sets, c)
	}
	if _, err := generator.BuildSite(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	startApache(t, www, port)
	client := &http.Client{Timeout: 5 * time.Second}
	t.Run("sets", func(t *testing.T) {
		resp, err := client.Get(docs.String() + "resourcesync/data/capabilitylist.xml")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := []string{"<" + docs.String() + `resourcesync/articles/capabilitylist.xml>; rel="resourcesync"`, "<" + docs.String() + `resourcesync/data/capabilitylist.xml>; rel="resourcesync"`}
		// Header append joins the values into one header: the same to HTTP.
		if got := resp.Header.Values("Link"); resp.StatusCode != 200 || strings.Join(got, ", ") != strings.Join(want, ", ") || resp.Header.Get("Content-Type") != "application/xml" {
			t.Errorf("HTTP %d, Content-Type %q, Link %q; want 200, application/xml, %q", resp.StatusCode, resp.Header.Get("Content-Type"), got, want)
		}
	})
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			base := bases[p]
			link := `<` + base + `resourcesync/capabilitylist.xml>; rel="resourcesync"`
			checkServed(t, client, base+".well-known/resourcesync", 200, "application/xml", link)
			checkServed(t, client, base+"resourcesync/capabilitylist.xml", 200, "application/xml", link)
			checkServed(t, client, base+"resourcesync/index.html", 200, "text/html", link)
			for _, hidden := range []string{hosting.S3Script, "resourcesync/.rsgen-manifest.json"} {
				resp, err := client.Get(base + hidden)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 403 {
					t.Errorf("%s: HTTP %d, want 403", hidden, resp.StatusCode)
				}
			}
		})
	}

	checkRefused(t, []string{hosting.Apache}, []refusal{
		{"https://example.org/a%0Ab/", "holds a control character once decoded"},
		{"https://example.org/a/%2E%2E/b/", `has a ".." segment once decoded, which Apache resolves`},
	})
}
