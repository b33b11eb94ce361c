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

// Packaging is how both dumps write their packages, and what they need of
// the build for it.
type Packaging struct {
	Docs        *docs.Writer // the packages and their manifests' copies are staged in its directory
	Hashes      hashing.Set
	Compression zipdump.Compression
	Jobs        int
	MaxBytes    int64             // a package is closed before it passes this size; zipdump.DefaultMaxBytes if 0
	Limits      listwriter.Limits // those of a manifest, as of every document
	At          time.Time         // the snapshot time
	// Clock is the clock, nil when the snapshot time was given: At is then
	// every package's time too, so that the same input gives the same bytes.
	Clock     func() time.Time
	Completed func() time.Time                // the time the build completed
	Files     Source                          // opens the files to package
	Of        string                          // what the files are of, in "publish again once the tree is stable": "tree" if ""
	Problems  *report.Problems                // the files that could not be packaged
	Notice    func(string)                    // tells the user what they should know; never nil
	WrapFile  func(zipdump.File) zipdump.File // wraps each package written (a test's hook); nil for none
}

// stable is the end of a problem of a file that changed while the build
// read it.
func (p *Packaging) stable() string {
	return "publish again once the " + cmp.Or(p.Of, "tree") + " is stable"
}

// Files are the files of a source, open for packaging: a tree's
// (treescan.Files) or an archive's members (archiveFiles).
type Files interface {
	// Open opens the bytes of an item (zipdump.Options.Open), from
	// several goroutines at once unless the files are archiveFiles that are
	// Sequential.
	Open(it *zipdump.Item) (io.ReadCloser, error)
	Close()
}

// archiveFiles are the members of an archive, open for packaging
// (archivescan.Members): listed in memory rather than read from the
// spool, and opened in the order of the archive if Sequential (a tar).
type archiveFiles interface {
	Files
	Index(name string) (int, bool) // the position in the archive of the member published as name
	Sequential() bool
}

// A Source opens the files of a tree, or the members of an archive, for
// packaging.
type Source func() (Files, error)

// Options are the options of the packages of the Resource Dump, but how
// they open what they package; the Change Dump starts from them too, and
// so does the dump of a record export.
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
	if p.Clock != nil {
		// Never before the snapshot time, which may be past the clock (a
		// build within the second of the one before).
		opt.Now = func() time.Time {
			if now := p.Clock(); now.After(p.At) {
				return now
			}
			return p.At
		}
	}
	return opt
}

// A cursor reads the elements of a spill spool one after the other, each
// into its Cur, which it reuses.
type cursor interface {
	Next() bool
	Err() error
}

// spoolSeq is the zipdump.Seq of the elements of a spool, in its order,
// read again for each pass: name and item give the name and the item of
// the element the cursor is at.
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
