package hosting_test

import (
	"bufio"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hosting"
)

// A headersRule is a rule of a _headers file: a path pattern, its headers.
type headersRule struct {
	pattern string
	headers map[string]string
}

func readHeaders(t *testing.T, name string) []headersRule {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rules []headersRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "/"):
			rules = append(rules, headersRule{pattern: line, headers: map[string]string{}})
		case len(rules) > 0:
			k, v, _ := strings.Cut(line, ":")
			rules[len(rules)-1].headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return rules
}

// netlifyMatch and cloudflareMatch report whether a request for the URL
// path p (percent-encoded, as the URL parser of a browser leaves it) gets
// the headers of a rule, as each host matches: a model of their published
// parsers (Netlify's @netlify/headers-parser, getForRegExp: per segment, a
// ":" first is a placeholder, a "*" a wildcard, the rest literal,
// case-insensitive; Cloudflare's workers-shared rules engine: "*" a named
// wildcard, ":name" a named placeholder anywhere, the rest literal, a rule
// with a name twice is invalid and dropped). Neither decodes the path.
func netlifyMatch(pattern, p string) bool {
	var parts []string
	for _, seg := range strings.Split(pattern, "/") {
		seg = strings.TrimRight(seg, " ")
		switch {
		case seg == "":
			continue
		case strings.HasPrefix(seg, ":"):
			parts = append(parts, "([^/]+)")
		case seg == "*":
			parts = append(parts, "?(.*)")
		case strings.Contains(seg, "*"):
			parts = append(parts, strings.ReplaceAll(seg, "*", "(.*)")) // the rest unescaped, as Netlify does
		default:
			parts = append(parts, regexp.QuoteMeta(seg))
		}
	}
	re, err := regexp.Compile("(?i)^/" + strings.Join(parts, "/") + "/?$")
	return err == nil && re.MatchString(p)
}

var cloudflarePlaceholder = regexp.MustCompile(`:[A-Za-z]\w*`)

func cloudflareMatch(pattern, p string) bool {
	seen := map[string]bool{}
	var expr strings.Builder
	for i, part := range strings.Split(pattern, "*") {
		if i > 0 {
			if seen["splat"] {
				return false
			}
			seen["splat"] = true
			expr.WriteString("(.*)")
		}
		last := 0
		for _, m := range cloudflarePlaceholder.FindAllStringIndex(part, -1) {
			name := part[m[0]+1 : m[1]]
			if seen[name] {
				return false
			}
			seen[name] = true
			expr.WriteString(regexp.QuoteMeta(part[last:m[0]]) + "([^/]+)")
			last = m[1]
		}
		expr.WriteString(regexp.QuoteMeta(part[last:]))
	}
	return regexp.MustCompile("^" + expr.String() + "$").MatchString(p)
}

// The _headers file serves a site at any base path a URL can have
// (basePaths), on Netlify and on Cloudflare Pages as their parsers read it:
// the Source Description and the Capability List get the XML type and the
// Link header, and a path of the host that differs from the base path in
// one of its characters gets neither. A base path that either host reads
// as a pattern ("*", and ":" before a letter or first in a segment) is
// refused when the build is configured: before, "/a*b/" and "/a:b/" gave
// rules that matched other paths of the host too, and on Cloudflare
// "/a*b/*" (two wildcards) an invalid rule, dropped with the Link header
// (issue 22, item 11).
func TestHeadersBasePaths(t *testing.T) {
	t.Parallel()
	hosts := []string{hosting.Netlify, hosting.Cloudflare}
	for _, p := range basePaths() {
		t.Run(p, func(t *testing.T) {
			if strings.ContainsAny(p, "*:") {
				checkRefused(t, hosts, []refusal{{"http://127.0.0.1:8080" + p, "which _headers (Netlify, Cloudflare Pages) reads as a"}})
				return
			}
			base, out := buildAt(t, t.TempDir(), 8080, p, hosts...)
			checkHeaders(t, base, filepath.Join(out, hosting.Headers))
		})
	}
}

// checkHeaders checks the _headers file name of a site at base with the
// models of both hosts.
func checkHeaders(t *testing.T, base, name string) {
	t.Helper()
	rules := readHeaders(t, name)
	u, _ := url.Parse(base)
	sitePath := u.EscapedPath()
	link := `<` + base + `resourcesync/capabilitylist.xml>; rel="resourcesync"`
	// Another path of the host: the base path with its character after
	// "/a" changed.
	other := ""
	if strings.HasPrefix(sitePath, "/a") && len(sitePath) > 3 {
		other = "/aQ" + sitePath[3:]
	}
	for name, match := range map[string]func(pattern, p string) bool{"netlify": netlifyMatch, "cloudflare": cloudflareMatch} {
		for _, doc := range []string{".well-known/resourcesync", "resourcesync/capabilitylist.xml"} {
			got := map[string]string{}
			for _, r := range rules {
				if match(r.pattern, sitePath+doc) {
					for k, v := range r.headers {
						got[k] = v
					}
				}
				if other != "" && match(r.pattern, other+doc) {
					t.Errorf("%s: the rule %q matches %s too", name, r.pattern, other+doc)
				}
			}
			if got["Content-Type"] != "application/xml" || got["Link"] != link {
				t.Errorf("%s: %s gets Content-Type %q and Link %q, want application/xml and %q", name, sitePath+doc, got["Content-Type"], got["Link"], link)
			}
		}
	}
}
