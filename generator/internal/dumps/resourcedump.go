package dumps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
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

// A ResourceDump writes the Resource Dump (section 11): Pack its
// packages, Write the document over them.
type ResourceDump struct {
	Packaging
	Stats *report.Stats
	Spill *spill.Area // spools the resources it keeps

	// The Resource Dump Archive, if Every is not 0.
	Prev   *previous.Site // nil for a first build
	Every  time.Duration
	Keep   time.Duration
	Copier *packages.Copier
}

type Packed struct {
	Packages  []packages.Package
	Completed time.Time
}

// Pack writes the Resource Dump's packages and returns the resources in
// them, and the locs of those left out. It runs before the Resource List
// is written, which must list the same resources (section 9): a file that
// changed since it was hashed, or whose name a package cannot hold, is
// left out of both, as a problem. A tar is packaged in its own order.
func (d *ResourceDump) Pack(ctx context.Context, resources *spill.ResourceSpool) (kept *spill.ResourceSpool, dropped []string, p *Packed, err error) {
	d.Stats.Enter(report.PhasePackaging)
	files, err := d.Files()
	if err != nil {
		return nil, nil, nil, err
	}
	defer files.Close()
	opt := d.Options()
	opt.Open = func(it *zipdump.Item) (io.ReadCloser, error) {
		d.Stats.Packed.Add(1)
		return files.Open(it)
	}
	members, isArchive := files.(archiveFiles)
	if isArchive {
		opt.Sequential = members.Sequential()
	}
	var res *zipdump.Result
	var left map[int]error // by index: why, or nil if reported already
	if !isArchive {
		res, err = zipdump.RunSeq(ctx, resourceItems(resources), opt)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("writing the Resource Dump: %w", err)
		}
		left = res.Why()
	} else if res, left, err = d.packMembers(ctx, resources, members.Index, opt); err != nil {
		return nil, nil, nil, err
	}
	if len(left) == 0 {
		return resources, nil, d.Written(res), nil
	}
	if kept, err = d.Spill.Resources(); err != nil {
		return nil, nil, nil, err
	}
	i := 0
	err = resources.Each(func(r *spill.Resource) error {
		defer func() { i++ }()
		err, out := left[i]
		if !out {
			return kept.Add(r)
		}
		if err != nil {
			d.Problems.Add(report.Problem{Path: r.Path, Err: d.describe(err)})
		}
		dropped = append(dropped, r.Loc)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	resources.Close()
	return kept, dropped, d.Written(res), nil
}

func resourceItems(s *spill.ResourceSpool) zipdump.Seq {
	return spoolSeq[*spill.Iter[spill.Resource]]{
		iter: s.Iter,
		name: func(it *spill.Iter[spill.Resource]) string { return it.Cur.Path },
		item: func(it *spill.Iter[spill.Resource]) zipdump.Item { return resourceItem(&it.Cur) },
	}
}

func resourceItem(r *spill.Resource) zipdump.Item {
	c := r.Clone() // the iterator reuses its links
	it := zipdump.Item{Name: c.Path, Size: c.Length, Hash: c.Hash}
	c.Entry(&it.Entry)
	return it
}

// packMembers packages an archive's members, listed in memory, and
// returns the indexes of the resources left out, each reported.
func (d *ResourceDump) packMembers(ctx context.Context, resources *spill.ResourceSpool, index func(name string) (int, bool), opt zipdump.Options) (*zipdump.Result, map[int]error, error) {
	type member struct {
		it zipdump.Item
		of int // its index in resources
	}
	members := make([]member, 0, resources.Len())
	left := map[int]error{}
	i := 0
	err := resources.Each(func(r *spill.Resource) error {
		defer func() { i++ }()
		if r.Path == "" {
			d.Problems.Add(report.Problem{Path: r.Loc, Err: errors.New("has no file to package, so it is left out of the Resource List too, which must list the same resources as the Resource Dump")})
			left[i] = nil
			return nil
		}
		members = append(members, member{resourceItem(r), i})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if opt.Sequential {
		at := func(m member) int { i, _ := index(m.it.Name); return i }
		slices.SortFunc(members, func(x, y member) int { return at(x) - at(y) })
	}
	items := make([]zipdump.Item, len(members))
	for k := range members {
		items[k] = members[k].it
	}
	res, err := zipdump.Run(ctx, items, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("writing the Resource Dump: %w", err)
	}
	for _, s := range res.Skipped {
		left[members[s.Index].of] = nil
		d.Problems.Add(report.Problem{Path: items[s.Index].Name, Err: d.describe(s.Err)})
	}
	return res, left, nil
}

// Written records the packages res wrote (Pack's, or a record export's)
// for Write. The dump completes no earlier than its last package.
func (d *ResourceDump) Written(res *zipdump.Result) *Packed {
	p := &Packed{Completed: d.Completed()}
	for _, q := range res.Packages {
		if q.Completed.After(p.Completed) {
			p.Completed = q.Completed
		}
		p.Packages = append(p.Packages, packages.Package{Name: q.Name, Manifest: q.ManifestName, Length: q.Size, Hash: hashing.FormatTokens(q.Hash),
			At: rsxml.FormatTime(q.At), Completed: rsxml.FormatTime(q.Completed)})
	}
	d.Docs.N += len(res.Packages) // the copies of the manifests
	return p
}

func (d *ResourceDump) describe(err error) error {
	switch {
	case errors.Is(err, zipdump.ErrChanged):
		return fmt.Errorf("%w; left out of the Resource List and the Resource Dump, %s", display.WithoutPath(err), d.stable())
	case errors.Is(err, zipdump.ErrName):
		return fmt.Errorf("%w; left out of the Resource List too, which must list the same files as the Resource Dump (or exclude it)", err)
	}
	return fmt.Errorf("%w; left out of the Resource List and the Resource Dump", display.ReadError(err))
}

// Write writes the Resource Dump (section 11.1) of p, if not nil, an index
// past the limits, and its archive.
func (d *ResourceDump) Write(ctx context.Context, p *Packed) error {
	if p == nil {
		return nil
	}
	ra := &archives.ResourceDumps{Docs: d.Docs, Prev: d.Prev, Every: d.Every, Keep: d.Keep, At: d.At, Notice: d.Notice, Copier: d.Copier}
	archive, err := ra.Plan()
	if err != nil {
		return err
	}
	pkgs := p.Packages
	md := rsxml.MD{Capability: rsxml.CapResourceDump, At: rsxml.FormatTime(d.At), Completed: rsxml.FormatTime(p.Completed)}
	opt := listwriter.Options{
		Name: packages.ResourceDumpStem,
		Doc:  rsxml.Doc{MD: md, Links: append([]rsxml.Link{{Rel: "up", Href: d.Docs.CapabilityListURL()}}, archive.Link()...)},
		PartMD: func(first, last *rsxml.MD) rsxml.MD {
			return rsxml.MD{At: first.At, Completed: last.Completed}
		},
	}
	for _, q := range pkgs { // the rule of the next build's reader and the validator
		if msg := rsxml.PackageTimes(&md, &rsxml.MD{At: q.At, Completed: q.Completed}, nil); msg != "" {
			return fmt.Errorf("writing the Resource Dump: package %s: %s", q.Name, msg)
		}
	}
	wl, err := d.Docs.List(opt, len(pkgs), func(i int, e *rsxml.Entry) { pkgs[i].Entry(d.Docs, e) })
	if err != nil {
		return err
	}
	d.Docs.Advertise(d.Docs.URL(wl.Name), rsxml.CapResourceDump)
	return ra.Write(ctx, archive, pkgs, p.Completed)
}
