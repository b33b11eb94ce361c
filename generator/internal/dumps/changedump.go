package dumps

import (
	"context"
	"fmt"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/zipdump"
)

// ChangeDumpName lists the packages (named by package packages).
const ChangeDumpName = "changedump.xml"

// A ChangeDump writes the Change Dump (section 13) of a build.
type ChangeDump struct {
	Packaging
	Changes     *spill.ChangeSet // this build's, chronological
	Prev        *previous.Site   // whose packages are carried forward; never nil
	Copier      *packages.Copier
	Keep        time.Duration        // how long a package is kept (Changes.Keep)
	ArchiveKeep time.Duration        // how long the Change Dump Archive keeps one; 0 for none
	Report      *report.ChangeReport // counts the packages published
}

// Write publishes the Change Dump (section 13.1): packages of the new
// bytes of this build's changes since from, each with a Change Dump
// Manifest (section 13.2) of every change, deletions included; the
// earlier builds' packages carried forward; and changedump.xml over all.
func (d *ChangeDump) Write(ctx context.Context, from time.Time) error {
	carried, err := d.carried(from)
	if err != nil {
		return err
	}
	var fresh []packages.Package
	if d.Changes.Len() > 0 {
		if fresh, err = d.pack(ctx, from); err != nil {
			return err
		}
	}
	if carried, err = d.fit(carried, fresh); err != nil {
		return err
	}
	da := &archives.ChangeDumps{Docs: d.Docs, Prev: d.Prev, Keep: d.ArchiveKeep, At: d.At, Notice: d.Notice, Copier: d.Copier}
	archive, err := da.Plan(from, len(fresh) > 0)
	if err != nil {
		return err
	}
	for i := range carried {
		if err := d.Copier.Copy(ctx, &carried[i]); err != nil {
			return err
		}
	}
	all := append(carried, fresh...)
	d.Report.Packages = len(all)
	if len(all) > 0 {
		md := rsxml.MD{Capability: rsxml.CapChangeDump, From: all[0].From, Until: all[len(all)-1].Until}
		doc := rsxml.Doc{MD: md, Links: append([]rsxml.Link{{Rel: "up", Href: d.Docs.CapabilityListURL()}}, archive.Link()...)}
		if err := d.Docs.Write(ChangeDumpName, doc, 0, len(all), func(i int, e *rsxml.Entry) { all[i].Entry(d.Docs, e) }); err != nil {
			return err
		}
		d.Docs.Advertise(d.Docs.URL(ChangeDumpName), rsxml.CapChangeDump)
	}
	return da.Write(ctx, archive, fresh, carried)
}

// pack writes this build's packages; each manifest covers its share of
// [from, until], as the parts of a Change List do.
func (d *ChangeDump) pack(ctx context.Context, from time.Time) ([]packages.Package, error) {
	changes := d.Changes
	files, err := d.Files()
	if err != nil {
		return nil, err
	}
	defer files.Close()
	// A package starts at the datetime of its first change.
	bound := func(i int, edge time.Time) string {
		if i <= 0 || i >= changes.Len() {
			return rsxml.FormatTime(edge)
		}
		return rsxml.FormatTime(changes.Datetime(i))
	}
	opt := d.Options()
	opt.Stem = packages.ChangeDumpStem + docs.Stamp(d.At)
	opt.ManifestMD = func(first, end int) rsxml.MD {
		return rsxml.MD{Capability: rsxml.CapChangeDumpManifest, From: bound(first, from), Until: bound(end, d.At)}
	}
	opt.Open = files.Open
	opt.Now = nil // a package's times are those of its changes, not the clock's
	res, err := zipdump.RunSeq(ctx, changeItems(changes), opt)
	if err != nil {
		return nil, fmt.Errorf("writing the Change Dump: %w", err)
	}
	if len(res.Skipped) > 0 {
		why := res.Why()
		i := 0
		err := changes.Each(func(c *spill.Change) error {
			if err, ok := why[i]; ok {
				d.Problems.Add(report.Problem{Path: c.Path, Err: fmt.Errorf("%w; its change is in the Change List but not in the Change Dump: %s", display.WithoutPath(err), d.stable())})
			}
			i++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	d.Docs.N += len(res.Packages) // the copies of the manifests
	pkgs := make([]packages.Package, len(res.Packages))
	for i, p := range res.Packages {
		pkgs[i] = packages.Package{Name: p.Name, Manifest: p.ManifestName, From: bound(p.First, from), Until: bound(p.End, d.At), Length: p.Size, Hash: hashing.FormatTokens(p.Hash)}
	}
	return pkgs, nil
}

// carried returns the previous build's packages to publish again: the
// newest run without gaps, less those that ended before At minus Keep. A
// run that does not end where this build's changes start would leave
// changes in no package: it is not carried (an archive keeps it).
func (d *ChangeDump) carried(from time.Time) ([]packages.Package, error) {
	cd := d.Prev.ChangeDump
	if cd == nil || len(cd.Packages) == 0 {
		return nil, nil
	}
	pkgs := cd.Packages
	start := len(pkgs) - 1
	for start > 0 && pkgs[start-1].Until == pkgs[start].From {
		start--
	}
	if start > 0 {
		d.Notice(fmt.Sprintf("the previous build: %d earlier Change Dump packages end before a gap: not carried forward", start))
	}
	run := pkgs[start:]
	if d.Changes.Len() > 0 {
		if end, err := rsxml.ParseTime(run[len(run)-1].Until); err != nil || !end.Equal(from) {
			d.Notice(fmt.Sprintf("the previous build: its Change Dump ends at %s, its Change Lists at %s (a build without a Change Dump?): its packages are not carried forward",
				run[len(run)-1].Until, rsxml.FormatTime(from)))
			return nil, nil
		}
	}
	cutoff := d.At.Add(-d.Keep)
	var out []packages.Package
	names := map[string]string{}
	for i := range run {
		p := &run[i]
		until, _ := rsxml.ParseTime(p.Until)
		if until.Before(cutoff) {
			continue
		}
		dp := packages.Package{Prev: p, From: p.From, Until: p.Until, Length: p.Length, Hash: p.Entry.MD.Hash}
		dp.Name, dp.Manifest = carriedNames(d.Docs, p, until, i+1)
		for _, n := range []string{dp.Name, dp.Manifest} {
			if other, dup := names[n]; n != "" && dup {
				return nil, fmt.Errorf("%w: %s and %s would both be published as %s", docs.ErrPrevious, other, p.URL, n)
			}
			names[n] = p.URL
		}
		out = append(out, dp)
	}
	return out, nil
}

// carriedNames are the names of a carried package and its manifest copy:
// theirs, if rsgen gave them, else those of a package ending when it ends.
func carriedNames(d *docs.Writer, p *previous.Package, until time.Time, n int) (string, string) {
	pkg := ""
	if base, ok := d.Mine(p.Rel); ok && packages.ChangeDumpFile.MatchString(base) {
		pkg = base
	} else {
		pkg = fmt.Sprintf("%s%s-%05d.zip", packages.ChangeDumpStem, docs.Stamp(until), n)
	}
	if p.Content == nil {
		return pkg, ""
	}
	if base, ok := d.Mine(p.Content.Rel); ok && packages.ChangeManifestFile.MatchString(base) {
		return pkg, base
	}
	return pkg, pkg[:len(pkg)-len(".zip")] + ".manifest.xml"
}

// fit drops the oldest carried packages until the Change Dump, never an
// index, fits one document.
func (d *ChangeDump) fit(carried, fresh []packages.Package) ([]packages.Package, error) {
	entries := make([]rsxml.Entry, len(carried)+len(fresh))
	for i := range carried {
		carried[i].Entry(d.Docs, &entries[i])
	}
	for i := range fresh {
		fresh[i].Entry(d.Docs, &entries[len(carried)+i])
	}
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeDump, From: rsxml.TimeWidth, Until: rsxml.TimeWidth},
		Links: []rsxml.Link{{Rel: "up", Href: d.Docs.CapabilityListURL()}}}
	drop, fits := listwriter.FitOldest(&doc, entries, len(carried), d.Limits)
	if !fits {
		return nil, &docs.LimitError{Err: fmt.Errorf("the Change Dump cannot list the %d packages of this build in one document (%d entries, %d bytes at most)",
			len(fresh), d.Limits.MaxEntries, d.Limits.MaxBytes), Raise: []string{"Dump.MaxBytes"}}
	}
	if drop > 0 {
		d.Notice(fmt.Sprintf("the Change Dump can list no more: its %d oldest packages are no longer published", drop))
	}
	return carried[drop:], nil
}

func changeItems(s *spill.ChangeSet) zipdump.Seq {
	return spoolSeq[*spill.Iter[spill.Change]]{
		iter: s.Iter,
		name: func(it *spill.Iter[spill.Change]) string { return changeItem(&it.Cur).Name },
		item: func(it *spill.Iter[spill.Change]) zipdump.Item { return changeItem(&it.Cur) },
	}
}

func changeItem(c *spill.Change) zipdump.Item {
	cc := *c
	cc.Resource = c.Clone() // the iterator reuses its slices
	it := zipdump.Item{Hash: cc.Hash}
	cc.Entry(&it.Entry)
	if c.Change == rsxml.ChangeDeleted || c.Path == "" {
		it.NoBitstream = true
	} else {
		it.Name, it.Size = c.Path, c.Length
	}
	return it
}
