package dumps

import (
	"cmp"
	"io"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/zipdump"
)

// Packaging is how both dumps write their packages.
type Packaging struct {
	Docs        *docs.Writer // stages the packages and manifest copies
	Hashes      hashing.Set
	Compression zipdump.Compression
	Jobs        int
	MaxBytes    int64             // a package is closed before it passes this size; zipdump.DefaultMaxBytes if 0
	Limits      listwriter.Limits // those of a manifest, as of every document
	At          time.Time         // the snapshot time
	Clock       func() time.Time  // nil when the snapshot time was given: then every package's time
	Completed   func() time.Time  // when the build completed
	Files       Source
	Of          string                          // "tree" if "": "publish again once the tree is stable"
	Problems    *report.Problems                // the files that could not be packaged
	Notice      func(string)                    // never nil
	WrapFile    func(zipdump.File) zipdump.File // a test's hook; nil for none
}

func (p *Packaging) stable() string {
	return "publish again once the " + cmp.Or(p.Of, "tree") + " is stable"
}

// Files are a tree's files (treescan.Files) or an archive's members,
// open for packaging (zipdump.Options.Open).
type Files interface {
	Open(it *zipdump.Item) (io.ReadCloser, error)
	Close()
}

// archiveFiles are an archive's members (archivescan.Members), listed in
// memory, and opened in their order if Sequential (a tar).
type archiveFiles interface {
	Files
	Index(name string) (int, bool) // the position in the archive of the member published as name
	Sequential() bool
}

type Source func() (Files, error)

// Options are those of the Resource Dump's packages but Open; the Change
// Dump and a record export's dump start from them too.
func (p *Packaging) Options() zipdump.Options {
	opt := zipdump.Options{
		Hashes:         p.Hashes,
		Compression:    p.Compression,
		Workers:        p.Jobs,
		MaxBytes:       p.MaxBytes,
		MaxEntries:     p.Limits.MaxEntries,
		MaxManifestLen: p.Limits.MaxBytes,
		Stem:           packages.ResourceDumpStem,
		Manifest:       rsxml.Doc{Links: []rsxml.Link{{Rel: "up", Href: p.Docs.CapabilityListURL()}}},
		At:             p.At,
		Create: func(name string) (zipdump.File, error) {
			f, err := p.Docs.Stage.Create(p.Docs.Dir + "/" + name)
			switch {
			case err != nil:
				return nil, err // not a nil *os.File in an interface
			case p.WrapFile != nil:
				return p.WrapFile(f), nil
			}
			return f, nil
		},
		Remove: func(name string) error { return p.Docs.Stage.Remove(p.Docs.Dir + "/" + name) },
	}
	if p.Clock != nil { // never before At, which may be past the clock
		opt.Now = func() time.Time {
			if now := p.Clock(); now.After(p.At) {
				return now
			}
			return p.At
		}
	}
	return opt
}

type cursor interface {
	Next() bool
	Err() error
}

// spoolSeq is the zipdump.Seq of a spool, read again for each pass.
type spoolSeq[C cursor] struct {
	iter func() (C, error)
	name func(C) string
	item func(C) zipdump.Item
}

func (q spoolSeq[C]) Names(yield func(name string) bool) error {
	it, err := q.iter()
	if err != nil {
		return err
	}
	for it.Next() && yield(q.name(it)) {
	}
	return it.Err()
}

func (q spoolSeq[C]) Items(yield func(it *zipdump.Item) bool) error {
	it, err := q.iter()
	if err != nil {
		return err
	}
	for it.Next() {
		item := q.item(it)
		if !yield(&item) {
			break
		}
	}
	return it.Err()
}
