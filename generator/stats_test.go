package generator

import (
	"path/filepath"
	"testing"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/testenv"
)

// Stats tells the CLI which step a build is at and how far the packaging
// has gone: a build ends checking what it wrote, having opened every
// file it packaged.
func TestStatsPhaseAndPacked(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c/d.txt"} {
		testenv.WriteFile(t, src, name, name)
	}
	for _, dump := range []bool{false, true} {
		cfg := testConfig(t, src, filepath.Join(t.TempDir(), "out"))
		cfg.Dump.Enabled = dump
		cfg.Stats = new(report.Stats)
		rep := mustBuild(t, cfg)
		if got := report.Phase(cfg.Stats.Phase.Load()); got != report.PhaseChecking {
			t.Errorf("dump %v: Phase at the end = %d, want PhaseChecking", dump, got)
		}
		want := int64(0)
		if dump {
			want = int64(rep.Files)
		}
		if got := cfg.Stats.Packed.Load(); got != want {
			t.Errorf("dump %v: Packed = %d, want %d", dump, got, want)
		}
	}
}
