package generator

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/validate"
)

func checkTestConfig(t testing.TB, out string) Config {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := ParseBaseURL("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Source: src, Out: out, BaseURL: base, At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
}

func TestBuildRefusesInvalidOutput(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if _, err := Build(context.Background(), checkTestConfig(t, out)); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(out, stage.WellKnownFile))
	if err != nil {
		t.Fatal(err)
	}
	// A bug of rsgen, simulated: a link that is no URI in the staged
	// Source Description.
	cfg := checkTestConfig(t, out)
	cfg.beforeCheck = func(s *stage.Stage) {
		p := s.Path(stage.WellKnownFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), "<url>", `<rs:ln rel="describedby" href="http://[example.org/about"/><url>`, 1))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.At = cfg.At.Add(time.Hour)
	_, err = Build(context.Background(), cfg)
	var ie *Error
	if !errors.As(err, &ie) || ie.Kind != KindInvalidOutput {
		t.Fatalf("Build: %v, want an InvalidOutputError", err)
	}
	if !strings.Contains(err.Error(), "bug of rsgen") || !strings.Contains(err.Error(), "["+validate.RuleLink+", ") {
		t.Errorf("error %q", err)
	}
	after, err := os.ReadFile(filepath.Join(out, stage.WellKnownFile))
	if err != nil || string(after) != string(before) {
		t.Errorf("the published Source Description changed (%v)", err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), stagePrefix) {
			t.Errorf("staging directory %s left behind", e.Name())
		}
	}
}

// BenchmarkCheck measures what the check adds to a build: validating a
// staged Resource List of 50,000 entries such as rsgen writes (about 14 MB,
// sha-256 digests), with the Capability List and Source Description. It
// reports the CPU time (user and system, all threads) per entry, which the
// load of a shared machine inflates less than the wall time.
func BenchmarkCheck(b *testing.B) {
	const n = 50000
	cfg := checkTestConfig(b, b.TempDir())
	cfg.DocsURL = cfg.BaseURL // as Build gives its site
	bd, err := newBuild(&cfg)
	if err != nil {
		b.Fatal(err)
	}
	stg, err := stage.New(cfg.Out, false)
	if err != nil {
		b.Fatal(err)
	}
	bd.attach(stg)
	defer stg.Discard()
	resources := make([]spill.Resource, n)
	for i := range resources {
		p := fmt.Sprintf("collection/%03d/item-%05d.html", i/1000, i)
		loc, _ := cfg.BaseURL.base.Resolve(p)
		resources[i] = spill.Resource{Path: p, Loc: loc, Length: int64(1000 + i), Modified: cfg.At.Add(-time.Duration(i) * time.Minute),
			Hash: []hashing.Token{{Alg: "sha-256", Digest: bytes.Repeat(binary.BigEndian.AppendUint32(nil, uint32(i)), 8)}}, Type: "text/html"}
	}
	spooled := spilltest.Spool(b, &bd.spill, resources)
	if err := bd.writeResourceList(context.Background(), spooled, bd.at); err != nil {
		b.Fatal(err)
	}
	if err := bd.spill.Remove(); err != nil {
		b.Fatal(err)
	}
	if err := bd.writeCapabilityList(); err != nil {
		b.Fatal(err)
	}
	if err := (&Site{}).writeSourceDescription([]*build{bd}); err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(bd.stage.Path(docsDir + "/resourcelist.xml"))
	b.SetBytes(info.Size())
	cpu := testenv.CPUTime()
	for b.Loop() {
		if err := checkStage(context.Background(), stg, []*build{bd}, bd.stats, bd.notice); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/1e3/float64(n*b.N), "cpu-us/entry")
}
