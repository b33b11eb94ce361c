package archives

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
)

// The Change Dump Archive (ResourceSync Archives, section 6):
// changedump-archive.xml lists closed Change Dumps kept under archive/,
// one for each build that packaged changes, named by the end of the
// interval it covers and listing that build's packages, which stay
// published beside the Change Dump's while an archived dump lists them.
const ChangeDumpArchiveName = "changedump-archive.xml"

// archivedDumpFile matches the names rsgen gives archived Change Dumps.
var archivedDumpFile = regexp.MustCompile(`^changedump-[0-9]{8}T[0-9]{6}Z\.xml$`)

// A ChangeDumps publishes the Change Dump Archive of a build.
type ChangeDumps struct {
	Docs   *docs.Writer
	Prev   *previous.Site
	Keep   time.Duration // how long an archived Change Dump is kept (Changes.Archive.Keep); 0 for no archive
	At     time.Time     // the snapshot time
	Notice func(string)  // tells the user what they should know; never nil
	// CopyPackage publishes a package of the previous build again.
	CopyPackage func(ctx context.Context, p *packages.Package) error
}

// A ChangeDumpPlan is what the Change Dump Archive of a build lists: the
// archived dumps of the previous build that are kept, and one of this
// build's packages, if it made any, covering from from.
type ChangeDumpPlan struct {
	carried []docs.Archived
	fresh   bool
	from    time.Time
}

// planDumpArchive returns the Change Dump Archive this build publishes,
// or nil for none, as planArchive does for the Change Lists: with
// Changes.Archive.Keep and the Change Dump, the previous build's archived
// dumps that end at the snapshot time minus ArchiveKeep or later, and
// this build's packages (fresh), which start at from, or where the
// previous archive ends.
func (da *ChangeDumps) Plan(from time.Time, fresh bool) (*ChangeDumpPlan, error) {
	prev := da.Prev.ChangeDumpArchive
	keep := da.Keep
	if keep == 0 {
		if prev != nil && len(prev.Lists) > 0 { // allowed by Changes.Drop (checkDumps)
			da.Notice(fmt.Sprintf("the Change Dump Archive of the previous build (%s) is no longer published", units.Count(len(prev.Lists), "Change Dump")))
		}
		return nil, nil
	}
	a := &ChangeDumpPlan{fresh: fresh, from: from}
	if prev == nil {
		if !fresh {
			return nil, nil
		}
		return a, nil
	}
	if len(prev.Lists) > 0 {
		a.from = prev.Lists[len(prev.Lists)-1].Until
	}
	var err error
	a.carried, err = docs.Retained(da.Docs, prev, func(l *previous.ArchivedList) time.Time { return l.Until }, da.At.Add(-keep), "Change Dump", da.Notice,
		func(_ *previous.ArchivedList, base string) bool { return archivedDumpFile.MatchString(base) })
	if err != nil {
		return nil, err
	}
	if len(a.carried) == 0 && !a.fresh {
		return nil, nil
	}
	return a, nil
}

// dumpArchivesLink is the link of changedump.xml to the Change Dump
// Archive, if the build publishes one.
func (da *ChangeDumps) Link(a *ChangeDumpPlan) []rsxml.Link {
	if a == nil {
		return nil
	}
	return []rsxml.Link{{Rel: "archives", Href: da.Docs.URL(ChangeDumpArchiveName)}}
}

// writeDumpArchive publishes the Change Dump Archive a: this build's
// packages (fresh) as a closed Change Dump from a.from to the snapshot
// time, the previous build's archived dumps again, byte for byte, each
// checked, with the packages they list that the Change Dump no longer
// does (published, the names of all the packages published so far), and
// the archive listing them all, oldest first; and advertises it. Past the
// limits of one document its oldest dumps are left out, with a notice.
func (da *ChangeDumps) Write(ctx context.Context, a *ChangeDumpPlan, fresh []packages.Package, published map[string]*Published) error {
	if a == nil {
		return nil
	}
	entries := make([]rsxml.Entry, 0, len(a.carried)+1)
	for _, c := range a.carried {
		entries = append(entries, rsxml.Entry{Loc: da.Docs.URL(c.Name), MD: rsxml.MD{From: rsxml.FormatTime(c.List.From), Until: rsxml.FormatTime(c.List.Until)}})
	}
	if a.fresh {
		name := docs.ArchiveDir + "/" + packages.ChangeDumpStem + docs.Stamp(da.At) + ".xml"
		for _, c := range a.carried {
			if c.Name == name {
				return fmt.Errorf("%w: its archived Change Dump %s has the name of this build's", docs.ErrPrevious, c.Name)
			}
		}
		md := rsxml.MD{Capability: rsxml.CapChangeDump, From: rsxml.FormatTime(a.from), Until: rsxml.FormatTime(da.At)}
		doc := rsxml.Doc{MD: md, Links: []rsxml.Link{{Rel: "up", Href: da.Docs.CapabilityListURL()}}}
		if err := da.Docs.Write(name, doc, 0, len(fresh), func(i int, e *rsxml.Entry) { fresh[i].Entry(da.Docs, e) }); err != nil {
			return err
		}
		entries = append(entries, rsxml.Entry{Loc: da.Docs.URL(name), MD: rsxml.MD{From: md.From, Until: md.Until}})
	}
	_, err := docs.WriteArchiveDoc(da.Docs, ChangeDumpArchiveName, rsxml.CapChangeDumpArchive, "Change Dump", entries, len(a.carried), da.Notice,
		func(i int) error { return da.copyDump(ctx, a.carried[i], published) })
	return err
}

// A Published is a package this build publishes: one of its own
// (fresh), or one of the previous build, listed by the Change Dump or by
// an archived dump (archived).
type Published struct {
	*packages.Package
	Fresh, Archived bool
}

// copyArchivedDump publishes an archived Change Dump of the previous
// build again, byte for byte, and the packages it lists that are not
// published yet (published has those that are, by name), under the names
// they had: it lists them by URL. A package the Change Dump lists too must
// be the same there (length, digests, manifest); none may be listed by two
// archived dumps, nor have the name of one of this build's.
func (da *ChangeDumps) copyDump(ctx context.Context, c docs.Archived, published map[string]*Published) error {
	data, pkgs, err := da.Prev.ReadArchivedDump(ctx, c.List)
	if err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	for i := range pkgs {
		p := &pkgs[i]
		base, ok := da.Docs.Mine(p.Rel)
		if !ok || !packages.ChangeDumpFile.MatchString(base) {
			return fmt.Errorf("%w: the archived Change Dump %s lists the package %s, which is not where rsgen publishes packages", docs.ErrPrevious, c.List.URL, p.URL)
		}
		dp := packages.Package{Prev: p, Name: base, From: p.From, Until: p.Until, Length: p.Length, Hash: p.Entry.MD.Hash}
		if p.Content != nil {
			mbase, ok := da.Docs.Mine(p.Content.Rel)
			if !ok || !packages.ChangeManifestFile.MatchString(mbase) {
				return fmt.Errorf("%w: the archived Change Dump %s links to the manifest %s, which is not where rsgen publishes manifests", docs.ErrPrevious, c.List.URL, p.Content.URL)
			}
			dp.Manifest = mbase
		}
		if pp, ok := published[base]; ok {
			switch {
			case pp.Fresh:
				return fmt.Errorf("%w: the archived Change Dump %s lists the package %s, which has the name of one of this build's", docs.ErrPrevious, c.List.URL, p.URL)
			case pp.Archived:
				return fmt.Errorf("%w: the package %s is listed by two archived Change Dumps (%s is one)", docs.ErrPrevious, p.URL, c.List.URL)
			case pp.Length != dp.Length || pp.Hash != dp.Hash || pp.Manifest != dp.Manifest || pp.From != dp.From || pp.Until != dp.Until:
				return fmt.Errorf("%w: the archived Change Dump %s lists the package %s otherwise than the Change Dump does (length, digests, interval or manifest)", docs.ErrPrevious, c.List.URL, p.URL)
			}
			pp.Archived = true
			continue
		}
		if err := da.CopyPackage(ctx, &dp); err != nil {
			return err
		}
		published[base] = &Published{Package: &dp, Archived: true}
	}
	return da.Docs.Copy(c.Name, c.List.URL, io.NopCloser(bytes.NewReader(data)))
}
