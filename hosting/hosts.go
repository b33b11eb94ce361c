package hosting

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// The static hosts rsgen writes configuration for (rsgen build --host).
const (
	GitHubPages = "github-pages"
	Netlify     = "netlify"
	Cloudflare  = "cloudflare"
	Nginx       = "nginx"
	Apache      = "apache"
	S3          = "s3"
)

// Hosts lists the hosts, in the order they are documented.
var Hosts = []string{GitHubPages, Netlify, Cloudflare, Nginx, Apache, S3}

// Files rsgen writes at the root of the output directory for hosts.
const (
	NoJekyll  = ".nojekyll"               // github-pages: publish .well-known/
	Headers   = "_headers"                // netlify, cloudflare
	NginxConf = "resourcesync.nginx.conf" // nginx: a snippet to include in server {}
	HTAccess  = ".htaccess"               // apache
	S3Script  = "resourcesync-s3.sh"      // s3: an upload script for the AWS CLI
)

// RootFiles are the files above: never published as content.
var RootFiles = []string{NoJekyll, Headers, NginxConf, HTAccess, S3Script}

// Pages rsgen always writes in its documents directory.
const (
	LandingPage = "resourcesync/index.html" // what the collection offers
	RobotsLines = "resourcesync/robots.txt" // the Sitemap: line for the site's robots.txt (section 6.3.4)
	HeadLink    = "resourcesync/head.html"  // the <link rel="resourcesync"> for pages (section 6.3.3)
)

func IsRootFile(rel string) bool { return slices.Contains(RootFiles, rel) }

// output is a file rendered from a template; hosts nil means always.
type output struct {
	name, template string
	hosts          []string
	mergeable      bool // a user's file with a block (BlockBegin, BlockEnd) gets rsgen's part in it
}

var outputs = []output{
	{NoJekyll, "", []string{GitHubPages}, false},
	{Headers, "headers.tmpl", []string{Netlify, Cloudflare}, true},
	{NginxConf, "nginx.conf.tmpl", []string{Nginx}, false},
	{HTAccess, "htaccess.tmpl", []string{Apache}, true},
	{S3Script, "s3.sh.tmpl", []string{S3}, false},
	{LandingPage, "index.html.tmpl", nil, false},
	{RobotsLines, "robots.txt.tmpl", nil, false},
	{HeadLink, "head.html.tmpl", nil, false},
}

func (o output) wanted(hosts []string) bool {
	return o.hosts == nil || slices.ContainsFunc(o.hosts, func(h string) bool { return slices.Contains(hosts, h) })
}

// ParseHosts reads the values of --host, each a comma-separated list, into
// hosts in the order of Hosts.
func ParseHosts(values []string) ([]string, error) {
	seen := map[string]bool{}
	for _, v := range values {
		for _, h := range strings.Split(v, ",") {
			h = strings.ToLower(strings.TrimSpace(h))
			if h == "" {
				continue
			}
			if !slices.Contains(Hosts, h) {
				return nil, fmt.Errorf("unknown host %q (known: %s)", h, strings.Join(Hosts, ", "))
			}
			seen[h] = true
		}
	}
	var hosts []string
	for _, h := range Hosts {
		if seen[h] {
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

// Marker is in the first lines of every configuration file rsgen writes:
// a file with it is rsgen's to rewrite, a file without it the user's.
const Marker = "Written by rsgen"

// Ours reports whether data, the content of a file, was written by rsgen:
// one with a BlockBegin or BlockEnd line is the user's, even with rsgen's
// marker at its top (a merged block starts it).
func Ours(data []byte) bool {
	if _, _, _, marked := block(data); marked {
		return false
	}
	head := data
	for i := 0; i < 3; i++ {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		if bytes.Contains(line, []byte(Marker)) {
			return true
		}
		head = rest
	}
	return false
}

// ErrNotOurs reports a host's file that exists and is the user's.
var ErrNotOurs = errors.New("exists and was not written by rsgen, which never overwrites it")

// The lines, each alone on its line, that mark in a user's _headers or
// .htaccess the block that rsgen rewrites at every build (Merge).
const (
	BlockBegin = "# BEGIN rsgen"
	BlockEnd   = "# END rsgen"
)

// Merge returns theirs with the lines between its one BlockBegin and one
// BlockEnd line replaced by ours, and true; false if it has no such block.
// ours takes the line ending of the BlockBegin line: a CRLF file stays so.
func Merge(theirs, ours []byte) ([]byte, bool) {
	start, end, ok, _ := block(theirs)
	if !ok {
		return nil, false
	}
	if len(ours) > 0 && !bytes.HasSuffix(ours, []byte("\n")) {
		ours = append(ours[:len(ours):len(ours)], '\n')
	}
	if bytes.HasSuffix(theirs[:start], []byte("\r\n")) {
		ours = bytes.ReplaceAll(bytes.ReplaceAll(ours, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
	}
	return slices.Concat(theirs[:start], ours, theirs[end:]), true
}

// HeaderRules counts the rules of a _headers file: lines that are not
// indented, blank or a comment (a rule's URL pattern).
func HeaderRules(data []byte) int {
	n := 0
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '#' {
			n++
		}
	}
	return n
}

// block returns the offsets of what lies between the BlockBegin and the
// BlockEnd line of data; ok unless there is not exactly one of each, in
// that order; marked if there is any.
func block(data []byte) (start, end int, ok, marked bool) {
	begins, ends, off := 0, 0, 0
	start, end = -1, -1
	for line := range bytes.Lines(data) {
		switch string(bytes.TrimSpace(line)) {
		case BlockBegin:
			begins++
			start = off + len(line)
		case BlockEnd:
			ends++
			end = off
		}
		off += len(line)
	}
	return start, end, begins == 1 && ends == 1 && start <= end, begins+ends > 0
}

// CheckConflicts returns an error naming the files hosts need in out that
// are the user's own without a block for rsgen (Merge), or links (never
// read through nor replaced). An existing .nojekyll is kept as it is.
func CheckConflicts(out string, hosts []string) error {
	var theirs []string
	for _, o := range outputs {
		if o.hosts == nil || o.name == NoJekyll || !o.wanted(hosts) {
			continue
		}
		p := filepath.Join(out, o.name)
		data, err := readConfig(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, confined.ErrSymlink) {
			theirs = append(theirs, p)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if Ours(data) {
			continue
		}
		if _, _, ok, _ := block(data); !ok || !o.mergeable {
			theirs = append(theirs, p)
		}
	}
	if len(theirs) > 0 {
		return conflict(theirs...)
	}
	return nil
}

func conflict(files ...string) error {
	return fmt.Errorf("a configuration file for a static host: %s %w", strings.Join(files, " and "), ErrNotOurs)
}

// Merged returns what rsgen writes at out/name, whose content is ours: ours,
// or a user's _headers or .htaccess with ours in its block (Merge). A user's
// file without its block (it went away since CheckConflicts) fails with
// ErrNotOurs.
func Merged(out, name string, ours []byte) ([]byte, error) {
	if !slices.ContainsFunc(outputs, func(o output) bool { return o.name == name && o.mergeable }) {
		return ours, nil
	}
	p := filepath.Join(out, name)
	theirs, err := readConfig(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ours, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", p, err)
	case Ours(theirs):
		return ours, nil
	}
	merged, ok := Merge(theirs, ours)
	if !ok {
		return nil, conflict(p)
	}
	return merged, nil
}

// maxConfig bounds a user's host configuration file: rsgen's own are a few
// KiB per hundred documents.
const maxConfig = 64 << 20

// readConfig reads the configuration file at p, refusing what is not a
// regular file, a link (what rsgen merges into is published: it must be
// the output's own bytes) or one larger than maxConfig.
func readConfig(p string) ([]byte, error) {
	dir, err := confined.Open(filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	data, err := dir.ReadFile(filepath.Base(p), maxConfig)
	if errors.Is(err, confined.ErrTooLarge) {
		err = fmt.Errorf("%w: not a configuration file rsgen can merge into", err)
	}
	return data, err
}
