package hostfiles

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/units"
)

// SiteSet is what the landing page of a site shows of one of its sets,
// gathered once the set's documents are staged (Set.SiteSet).
type SiteSet struct {
	hosting.SiteSet
	days []hosting.ChangeCounts // the changes its Change Lists list, by day
}

// SiteSet gathers what the landing page of the site shows of s; changes
// are those of this build, nil without a previous build.
func (s *Set) SiteSet(changes *hosting.ChangeCounts) (*SiteSet, error) {
	d, err := s.Data()
	if err != nil {
		return nil, err
	}
	set := &SiteSet{SiteSet: hosting.SiteSet{
		Name: s.Name, BaseURL: d.BaseURL, Resources: d.Resources, Size: units.FormatSize(d.Bytes),
		Page: s.Name + "/index.html", CapabilityList: s.Name + "/capabilitylist.xml", CapabilityListURL: d.CapabilityListURL,
		Changes: changes,
	}, days: d.Changes}
	for _, c := range d.Capabilities {
		if c.Href != c.URL { // a document of the set's directory
			c.Href = s.Name + "/" + c.Href
		}
		set.Capabilities = append(set.Capabilities, c)
	}
	return set, nil
}

// StageSitePage stages the landing page of a site of sets, at
// hosting.LandingPage as a single set's is: in the documents directory,
// which rsgen owns whole, so that no file of the user's is in its way. It
// renders it from the templates of fsys (the embedded ones if nil).
func StageSitePage(stg *stage.Stage, fsys fs.FS, docsURL, describedby string, at time.Time, sets []*SiteSet) error {
	d := &hosting.SiteData{DocsURL: docsURL, SourceDescriptionURL: docsURL + stage.WellKnownFile, Describedby: describedby, At: rsxml.FormatTime(at)}
	days := dayCounts{}
	for _, s := range sets {
		d.Sets = append(d.Sets, s.SiteSet)
		for _, c := range s.days {
			days.add(c)
		}
	}
	d.Chart = hosting.ChangeChart(days.sorted(), at)
	page, err := hosting.RenderSite(templatesOf(fsys), d)
	if err != nil {
		return err
	}
	if err := stg.WriteFile(hosting.LandingPage, page); err != nil {
		return fmt.Errorf("writing %s: %w", hosting.LandingPage, err)
	}
	return nil
}

// countChanges counts, by day, in order, the changes that the Change
// Lists of the set of w list as staged: changelist.xml, or the lists its
// index lists. Only the counts are kept, one entry at a time.
func countChanges(stg *stage.Stage, w *docs.Writer) ([]hosting.ChangeCounts, error) {
	days := dayCounts{}
	index, err := readList(stg, w.Dir+"/changelist.xml", days.count)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no previous build: no Change List
	}
	if err != nil {
		return nil, err
	}
	for _, loc := range index {
		name, ok := strings.CutPrefix(loc, w.URL(""))
		if !ok {
			continue // not staged here
		}
		if _, err := readList(stg, w.Dir+"/"+name, days.count); err != nil {
			return nil, err
		}
	}
	return days.sorted(), nil
}

type dayCounts map[time.Time]*hosting.ChangeCounts

func (days dayCounts) add(c hosting.ChangeCounts) {
	if sum := days[c.Day]; sum != nil {
		sum.Add(c)
	} else {
		days[c.Day] = &c
	}
}

func (days dayCounts) sorted() []hosting.ChangeCounts {
	list := make([]hosting.ChangeCounts, 0, len(days))
	for _, c := range days {
		list = append(list, *c)
	}
	slices.SortFunc(list, func(a, b hosting.ChangeCounts) int { return a.Day.Compare(b.Day) })
	return list
}

// readList reads the staged list name, calling each with its entries; if
// it is an index, it returns the locs of its lists instead.
func readList(stg *stage.Stage, name string, each func(*rsxml.Entry)) (index []string, err error) {
	f, err := os.Open(stg.Path(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := rsxml.NewReader(f, rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			return index, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if r.Doc().Index {
			index = append(index, e.Loc)
		} else {
			each(e)
		}
	}
}

func (days dayCounts) count(e *rsxml.Entry) {
	t, err := rsxml.ParseTime(e.MD.Datetime)
	if err != nil {
		return
	}
	c := hosting.ChangeCounts{Day: t.UTC().Truncate(24 * time.Hour)}
	switch e.MD.Change {
	case rsxml.ChangeCreated:
		c.Created = 1
	case rsxml.ChangeUpdated:
		c.Updated = 1
	case rsxml.ChangeDeleted:
		c.Deleted = 1
	}
	days.add(c)
}
