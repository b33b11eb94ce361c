package generator

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	src := os.Getenv("PROF_SRC")
	if src == "" {
		t.Skip()
	}
	base, _ := ParseBaseURL("https://example.org/")
	for i := 0; i < 4; i++ {
		cfg := Config{Source: src, Out: "/tmp/rsgen-prof-out", BaseURL: base, At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true, Cache: "/tmp/rsgen-prof-cache",
			Filter: Filter{Exclude: []string{".complete"}}}
		if i == 3 {
			cfg.Cache = ""
		}
		ctx := context.Background()
		st := time.Now()
		b, _ := newBuild(&cfg)
		b.stage, _ = NewStage(cfg.Out)
		lap := func(what string) { t.Logf("%d %-12s %v", i, what, time.Since(st)); st = time.Now() }
		lap("new")
		b.prepareAcross(ctx)
		lap("prepare")
		var f *os.File
		if i == 2 {
			f, _ = os.Create("/tmp/scan.prof")
			pprof.StartCPUProfile(f)
		}
		res, _ := b.scanTree(ctx)
		if i == 2 {
			pprof.StopCPUProfile()
			f.Close()
		}
		lap("scan")
		b.detectChanges(ctx, res)
		lap("detect")
		b.writeResourceList(res, b.at)
		lap("writeRL")
		b.writeCapabilityList()
		b.writeSourceDescription()
		b.stage.Publish()
		lap("publish")
		b.saveCache()
		lap("savecache")
	}
}
