package archives

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// ResourceListArchiveName lists Resource Lists kept under archive/, named
// by their snapshot time (past the limits, an index over its parts).
const ResourceListArchiveName = "resourcelist-archive.xml"

// A ResourceLists publishes the Resource List Archive of a build.
type ResourceLists struct {
	Docs   *docs.Writer
	Prev   *previous.Site // nil for a first build
	Every  time.Duration  // how often the Resource List is archived; 0 for no archive
	Keep   time.Duration  // how long an archived one is kept
	At     time.Time      // the snapshot time
	Notice func(string)   // never nil
}

func (la *ResourceLists) Plan() (*changelists.Archive, error) {
	return planSnapshots(changelists.Archive{Docs: la.Docs, Name: ResourceListArchiveName, What: "Resource List", Capability: rsxml.CapResourceListArchive,
		Stem: "resourcelist-", Notice: la.Notice, Listed: func(l *previous.ArchivedList) rsxml.MD { return rsxml.MD{At: rsxml.FormatTime(l.At)} }},
		la.Prev, func(p *previous.Site) *previous.Archive { return p.ResourceListArchive }, la.Every, la.Keep, la.At)
}

// planSnapshots plans a, an archive of snapshots (docs.PlanSnapshots), from
// the previous build's archive; nil for none.
func planSnapshots(a changelists.Archive, prev *previous.Site, archive func(*previous.Site) *previous.Archive, every, keep time.Duration, at time.Time) (*changelists.Archive, error) {
	var pa *previous.Archive
	if prev != nil {
		pa = archive(prev)
	}
	plan, err := docs.PlanSnapshots(a.Docs, pa, prev != nil, every, keep, at, a.What, strings.TrimSuffix(a.Stem, "-"), a.Notice)
	if plan == nil || err != nil {
		return nil, err
	}
	a.Carried, a.Fresh = plan.Carried, plan.Fresh
	return &a, nil
}

// Write publishes a: this build's Resource List under archive/ if due
// (opt, n and fill wrote resourcelist.xml), the previous build's archived
// lists again, and the archive.
func (la *ResourceLists) Write(ctx context.Context, a *changelists.Archive, opt listwriter.Options, n int, fill func(i int, e *rsxml.Entry)) error {
	if a == nil {
		return nil
	}
	_, err := a.Write(la.At, func(stem string) ([]rsxml.Entry, error) {
		opt.Name = stem
		wl, err := la.Docs.List(opt, n, fill)
		if err != nil { // its longer locs may not fit where resourcelist.xml's did
			return nil, fmt.Errorf("the archived copy of the Resource List: %w", err)
		}
		return []rsxml.Entry{{Loc: la.Docs.URL(wl.Name), MD: rsxml.MD{At: opt.Doc.MD.At}}}, nil
	}, func(c docs.Archived) error { return la.copyList(ctx, c) })
	return err
}

// copyList publishes an archived Resource List again, and its parts.
func (la *ResourceLists) copyList(ctx context.Context, c docs.Archived) error {
	stem := strings.TrimSuffix(c.Name, ".xml")
	parts := 0
	err := la.Prev.ReadArchivedList(ctx, c.List, func(u string, data []byte) error {
		name := c.Name
		if u != c.List.URL {
			parts++
			name = listwriter.PartName(stem, parts) // numbered from 1 in the order of the index
			if u != la.Docs.URL(name) {
				return fmt.Errorf("%w: the archived Resource List %s has the part %s where rsgen archives %s", docs.ErrPrevious, c.List.URL, u, la.Docs.URL(name))
			}
		}
		return la.Docs.Copy(name, u, io.NopCloser(bytes.NewReader(data)))
	})
	return docs.PreviousErr(err)
}
