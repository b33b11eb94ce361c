package dumps

import (
	"os"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/docs/docstest"
	"github.com/rsgen/rsgen/zipdump"
)

// The time of the packages is the snapshot time when it was given, else
// the clock, but never before the snapshot time.
func TestPackagingNow(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)
	p := Packaging{Docs: &docs.Writer{Base: "https://example.org/", Dir: "resourcesync"}, At: at}
	if p.Options().Now != nil {
		t.Error("a given snapshot time: the packages have a clock")
	}
	for _, tt := range []struct{ clock, want time.Time }{
		{at.Add(-time.Hour), at},
		{at.Add(time.Minute), at.Add(time.Minute)},
	} {
		p.Clock = func() time.Time { return tt.clock }
		if got := p.Options().Now(); !got.Equal(tt.want) {
			t.Errorf("clock at %s: the packages' time is %s, want %s", tt.clock, got, tt.want)
		}
	}
}

// The packages are staged in the documents' directory, each through
// WrapFile if it is set.
func TestPackagingCreate(t *testing.T) {
	t.Parallel()
	d := docstest.Writer(t)
	wrapped := 0
	p := Packaging{Docs: d,
		WrapFile: func(f zipdump.File) zipdump.File { wrapped++; return f }}
	opt := p.Options()
	f, err := opt.Create("resourcedump-00001.zip")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if wrapped != 1 {
		t.Errorf("WrapFile called %d times, want 1", wrapped)
	}
	if _, err := os.Stat(d.Stage.Path("resourcesync/resourcedump-00001.zip")); err != nil {
		t.Errorf("not staged in the documents' directory: %v", err)
	}
	if err := opt.Remove("resourcedump-00001.zip"); err != nil {
		t.Errorf("Remove: %v", err)
	}
	if _, err := os.Stat(d.Stage.Path("resourcesync/resourcedump-00001.zip")); !os.IsNotExist(err) {
		t.Errorf("still staged after Remove: %v", err)
	}
}
