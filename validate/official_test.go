package validate_test

import (
	"bufio"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/validate"
)

// The official validator, rs-validate.py, sits in ../shared/tools beside a
// checkout in CI. These tests compare its verdicts with rsgen's, and skip
// where it (or python3 with lxml) is absent.

// pythonDiffers lists the corpus documents on which the official validator
// knowingly disagrees, and why (docs/VALIDATE.md).
var pythonDiffers = map[string]string{
	"xml--doctype.xml":               "rsgen refuses any DOCTYPE (entity expansion is an attack surface); lxml reads an internal subset",
	"xml--utf16.xml":                 "the Sitemaps protocol requires UTF-8; lxml reads UTF-16",
	"foreign-element.xml":            "the schemas' strict wildcard rejects elements of other namespaces; rsgen warns, as the Sitemaps protocol allows extensions",
	"type-pattern.xml":               "the schema's pattern rejects correct dotted media types; rsgen warns",
	"empty.xml":                      "the schemas want one entry; section 7 allows none: rsgen warns",
	"interval.xml":                   "rs-validate.py does not compare completed with at",
	"package-times.xml":              "rs-validate.py does not compare a package's times with its dump's",
	"package-times--change.xml":      "rs-validate.py does not compare a package's times with its dump's",
	"caplist-entry--description.xml": "rs-validate.py does not check which capabilities a Capability List lists",
	"length--negative.xml":           "xsd:integer allows a negative length on rs:md; a Content-Length is never negative",
	"link--missing-href.xml":         "the schema makes href optional; section 7 requires it",
	"loc--relative.xml":              "xsd:anyURI accepts a relative reference; a Destination cannot dereference one",
	"duplicate-loc.xml":              "rs-validate.py does not look for a resource listed twice",
	"hash--twice.xml":                "rs-validate.py accepts two digests of one algorithm, which rsgen's reader rejects",
}

// official skips t where rs-validate.py cannot run (in CI, it fails t
// instead).
func official(t *testing.T) {
	t.Helper()
	if testenv.Official(t) == nil {
		t.Skip("the official validator cannot run here")
	}
}

// officialVerdicts runs rs-validate.py with args (its flags, then paths)
// and returns, per document, whether it passed.
func officialVerdicts(t *testing.T, args ...string) map[string]bool {
	t.Helper()
	out, _ := testenv.RunOfficial(t, args...)
	verdicts := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "OK "):
			verdicts[strings.TrimPrefix(line, "OK ")] = true
		case strings.HasPrefix(line, "FAIL "):
			p, _, _ := strings.Cut(strings.TrimPrefix(line, "FAIL "), ": ")
			verdicts[p] = false
		}
	}
	return verdicts
}

func TestAgreesWithOfficialOnCorpus(t *testing.T) {
	t.Parallel()
	official(t)
	files, _ := filepath.Glob("testdata/broken/*.xml")
	examples, _ := filepath.Glob("testdata/examples/*.xml")
	files = append(append(files, examples...), "testdata/examples/.well-known/resourcesync", "testdata/resourcesync_ex_27-nonhex-hash.xml")
	verdicts := officialVerdicts(t, files...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			theirs, ok := verdicts[f]
			if !ok {
				t.Fatalf("rs-validate.py said nothing of %s", f)
			}
			rep, err := validate.Path(context.Background(), f, validate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ours := rep.Valid(false)
			why, differs := pythonDiffers[filepath.Base(f)]
			switch {
			case differs && ours == theirs:
				t.Errorf("listed as a known difference (%s), but both validators say valid=%v", why, ours)
			case !differs && ours != theirs:
				t.Errorf("rsgen says valid=%v, rs-validate.py valid=%v; findings: %v", ours, theirs, rep.Findings)
			}
		})
	}
}

// TestAgreesWithOfficialOnOutput builds the example collection in several
// ways and checks that both validators accept what rsgen writes, with the
// official one as strict as CI runs it (-w --require-up).
func TestAgreesWithOfficialOnOutput(t *testing.T) {
	t.Parallel()
	official(t)
	at := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		cfg  func(*generator.Config)
	}{
		{"default", func(*generator.Config) {}},
		{"split into an index", func(c *generator.Config) { c.Limits.MaxEntries = 3 }},
		{"every digest", func(c *generator.Config) {
			c.Hashes = hashing.Set{hashing.MD5, hashing.SHA1, hashing.SHA256, hashing.BLAKE3}
		}},
		{"base URL with a path", func(c *generator.Config) {
			c.BaseURL, _ = generator.ParseBaseURL("https://user.github.io/project/")
			c.Describedby = "https://user.github.io/project/about.html"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			base, _ := generator.ParseBaseURL("https://example.org/")
			cfg := generator.Config{Source: "../testdata/site", Out: out, BaseURL: base, At: at, FixedTime: true}
			tt.cfg(&cfg)
			if _, err := generator.Build(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			verdicts := officialVerdicts(t, "--require-up", filepath.Join(out, "resourcesync"), filepath.Join(out, ".well-known", "resourcesync"))
			if len(verdicts) < 3 {
				t.Fatalf("rs-validate.py checked %d documents", len(verdicts))
			}
			for p, ok := range verdicts {
				if !ok {
					t.Errorf("rs-validate.py rejects %s", p)
				}
			}
			rep, err := validate.Path(context.Background(), out, validate.Options{Resources: "../testdata/site"})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Valid(true) {
				t.Errorf("rsgen validate --strict rejects what rsgen wrote: %v", rep.Findings)
			}
			if len(rep.Documents) != len(verdicts) {
				t.Errorf("rsgen checked %d documents, rs-validate.py %d", len(rep.Documents), len(verdicts))
			}
			if rep.Audited != 9 {
				t.Errorf("%d resources audited, want the 9 files of testdata/site", rep.Audited)
			}
		})
	}
}
