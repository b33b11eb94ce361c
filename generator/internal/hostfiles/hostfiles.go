package hostfiles

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/templates"
)

// cloudflareMaxRules is how many rules of _headers Cloudflare Pages applies.
const cloudflareMaxRules = 100

// A Set is what the pages and the hosts' files show of one resource set,
// once its documents are staged.
type Set struct {
	Name        string // the set; "" for a build without sets
	Hosts       []string
	Templates   fs.FS    // the embedded templates if nil
	BaseURL     uri.Base // where the resources are served
	DocsURL     uri.Base // where the output directory is served
	Describedby string
	Hashes      hashing.Set
	At          time.Time // the snapshot
	Completed   time.Time

	Docs        *docs.Writer
	Stage       *stage.Stage
	Resources   *spill.ResourceSpool // nil for a record export, which gives Listed and Bytes
	Listed      int
	Bytes       int64
	OutIsSource bool // the output directory is the source tree itself
	FollowLinks bool // the build followed symbolic links in the source
}

// Part stages the set's pages in its directory and gathers what the
// site's files show of it; changes are nil without a previous build.
func (s *Set) Part(changes *hosting.ChangeCounts) (*Part, error) {
	d, err := s.Data()
	if err != nil {
		return nil, err
	}
	files, err := hosting.Render(cmp.Or[fs.FS](s.Templates, templates.FS), s.Hosts, d)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if !strings.HasPrefix(f.Name, stage.DocsDir+"/") {
			continue // the hosts' files, the site's (Site.Write)
		}
		name := s.Docs.Dir + "/" + path.Base(f.Name)
		if err := s.Stage.WriteFile(name, f.Data); err != nil {
			return nil, fmt.Errorf("writing %s: %w", name, err)
		}
	}
	p := &Part{Name: s.Name, Data: d, days: d.Changes, page: hosting.SiteSet{
		Name: s.Name, BaseURL: d.BaseURL, Resources: d.Resources, Size: units.FormatSize(d.Bytes),
		Page: s.Name + "/index.html", CapabilityList: s.Name + "/capabilitylist.xml", CapabilityListURL: d.CapabilityListURL,
		Changes: changes,
	}}
	for _, c := range d.Capabilities {
		if c.Href != c.URL { // a document of the set's directory
			c.Href = s.Name + "/" + c.Href
		}
		p.page.Capabilities = append(p.page.Capabilities, c)
	}
	return p, nil
}

// stageFiles stages files rendered for hosts: a configuration file the
// user wrote in the output directory out gets rsgen's part in its block.
func stageFiles(stg *stage.Stage, out string, hosts []string, files []hosting.File, notice func(string)) error {
	for _, f := range files {
		if f.Name == hosting.NoJekyll {
			if _, err := os.Lstat(filepath.Join(out, f.Name)); err == nil {
				continue // the site has one already: it does the same
			}
		}
		data, err := hosting.Merged(out, f.Name, f.Data)
		if err != nil {
			return err
		}
		if err := stg.WriteFile(f.Name, data); err != nil {
			return fmt.Errorf("writing %s: %w", f.Name, err)
		}
		if f.Name == hosting.Headers && slices.Contains(hosts, hosting.Cloudflare) {
			if n := hosting.HeaderRules(data); n > cloudflareMaxRules { // the user's rules count too
				notice(fmt.Sprintf("%s has %d rules; Cloudflare Pages applies the first %d, so some documents are served with its default type for .xml", f.Name, n, cloudflareMaxRules))
			}
		}
	}
	return nil
}

// robotsNotice tells when the site's own robots.txt does not name the
// Resource List (section 6.3.4). rsgen never writes that file.
func robotsNotice(docsURL uri.Base, out, resourceList string, notice func(string)) {
	u, err := url.Parse(docsURL.String())
	if err != nil || u.Path != "/" {
		return // robots.txt counts at the root of a host only
	}
	f, _, err := regfile.Open(filepath.Join(out, "robots.txt")) // a FIFO is not waited on
	if err != nil {
		return
	}
	defer f.Close()
	// What a crawler reads of it: RFC 9309, section 2.5, asks for 500 KiB.
	const maxRobots = 500 << 10
	sc := bufio.NewScanner(io.LimitReader(f, maxRobots))
	sc.Buffer(nil, maxRobots)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "sitemap") && strings.TrimSpace(v) == resourceList {
			return
		}
	}
	notice(fmt.Sprintf("robots.txt does not name the Resource List: add the line 'Sitemap: %s' (as in %s)", resourceList, hosting.RobotsLines))
}

// Data gathers what the templates show of the set.
func (s *Set) Data() (*hosting.Data, error) {
	docsURL, base := s.DocsURL.String(), s.BaseURL.String()
	du, err := url.Parse(docsURL)
	if err != nil {
		return nil, err
	}
	bu, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	d := &hosting.Data{
		Hosts:                 s.Hosts,
		BaseURL:               base,
		DocsURL:               docsURL,
		HostURL:               du.Scheme + "://" + du.Host + "/",
		SitePath:              du.EscapedPath(),
		DocsPath:              du.EscapedPath() + uri.EscapePath(s.Docs.Dir) + "/",
		SourceDescriptionPath: du.EscapedPath() + stage.WellKnownFile,
		SiteRel:               strings.Repeat("../", strings.Count(s.Docs.Dir, "/")+1),
		SourceDescriptionURL:  s.Docs.SourceDescriptionURL(),
		CapabilityListURL:     s.Docs.CapabilityListURL(),
		ResourceListURL:       s.Docs.URL("resourcelist.xml"),
		Describedby:           s.Describedby,
		At:                    rsxml.FormatTime(s.At),
		Completed:             rsxml.FormatTime(s.Completed),
		Hashes:                s.Hashes.String(),
	}
	sameHost := bu.Scheme == du.Scheme && bu.Host == du.Host
	if sameHost {
		d.ContentPath = bu.EscapedPath()
	}
	d.Sets = []hosting.SetData{{Name: s.Name, ContentPath: d.ContentPath, CapabilityListURL: d.CapabilityListURL, ResourceListURL: d.ResourceListURL}}
	if s.Resources != nil {
		d.Resources, d.Bytes = s.Resources.Len(), s.Resources.Bytes
	} else {
		d.Resources, d.Bytes = s.Listed, s.Bytes
	}
	d.Size = units.FormatSize(d.Bytes)
	s.addCapabilities(d)
	if err := s.addDocuments(d); err != nil {
		return nil, err
	}
	if d.Changes, err = countChanges(s.Stage, s.Docs); err != nil {
		return nil, err
	}
	d.Chart = hosting.ChangeChart(d.Changes, s.At)
	// The resources are uploaded from the output directory if they are in
	// it and served where the documents' directory says: with a base URL
	// of another path than the documents', the files would go under keys
	// their URLs do not have.
	if s.OutIsSource && sameHost && bu.EscapedPath() == du.EscapedPath() {
		d.S3.ContentHere, d.S3.FollowLinks = true, s.FollowLinks
		if slices.Contains(s.Hosts, hosting.S3) {
			if d.S3.Typed, err = TypedFiles(s.Resources, ""); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// addCapabilities lists the Capability List's entries in d, and those of
// the set's directory in the order the upload script uploads them.
func (s *Set) addCapabilities(d *hosting.Data) {
	for _, c := range s.Docs.Caps {
		capability := hosting.Capability{Capability: c.MD.Capability, Name: capabilityNames[c.MD.Capability], URL: c.Loc, Href: c.Loc}
		if name, ok := strings.CutPrefix(c.Loc, s.Docs.URL("")); ok {
			d.S3.Top = append(d.S3.Top, name)
			capability.Href = name
		}
		d.Capabilities = append(d.Capabilities, capability)
	}
	// An archive first: the script uploads a document after those it
	// links to (changelist.xml, rel="archives").
	archiveFirst := func(name string) int {
		if strings.Contains(name, "-archive") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(d.S3.Top, func(a, b string) int { return cmp.Compare(archiveFirst(a), archiveFirst(b)) })
	d.S3.Top = append(d.S3.Top, "capabilitylist.xml")
}

// addDocuments lists in d the files staged in the set's directory, and
// the size of the Source Description.
func (s *Set) addDocuments(d *hosting.Data) error {
	if info, err := os.Stat(s.Stage.Path(stage.WellKnownFile)); err == nil {
		d.SourceDescriptionSize = units.FormatSize(info.Size())
	}
	for _, name := range s.Stage.Files() {
		rel, ok := strings.CutPrefix(name, s.Docs.Dir+"/")
		if !ok {
			continue
		}
		info, err := os.Stat(s.Stage.Path(name))
		if err != nil {
			return err
		}
		d.Documents = append(d.Documents, hosting.Document{Name: rel, URL: s.Docs.URL(rel), Path: d.DocsPath + uri.EscapePath(rel),
			Bytes: info.Size(), Size: units.FormatSize(info.Size()), XML: strings.HasSuffix(rel, ".xml")})
	}
	slices.SortFunc(d.Documents, func(a, b hosting.Document) int { return strings.Compare(a.Name, b.Name) })
	return nil
}

// TypedFiles are the files of resources that the upload script gives a
// type of their own, their paths under prefix ("" or ending in "/").
func TypedFiles(resources *spill.ResourceSpool, prefix string) ([]hosting.TypedFile, error) {
	if resources == nil {
		return nil, nil
	}
	var typed []hosting.TypedFile
	err := resources.Each(func(r *spill.Resource) error {
		if f := (hosting.TypedFile{Path: prefix + r.Path, Type: r.Type}); r.Path != "" && hosting.UploadedTyped(f) {
			typed = append(typed, f)
		}
		return nil
	})
	return typed, err
}

var capabilityNames = map[string]string{
	rsxml.CapResourceList: "Resource List", rsxml.CapResourceDump: "Resource Dump",
	rsxml.CapChangeList: "Change List", rsxml.CapChangeDump: "Change Dump",
	rsxml.CapChangeListArchive: "Change List Archive", rsxml.CapChangeDumpArchive: "Change Dump Archive",
	rsxml.CapResourceListArchive: "Resource List Archive", rsxml.CapResourceDumpArchive: "Resource Dump Archive",
}

// A Part is what a set gives the files of its site (Set.Part).
type Part struct {
	Name  string        // the set; "" for the one set of a build without sets
	Data  *hosting.Data // of the set alone
	Here  bool          // its resources are in the output directory, where their URLs say
	Typed []hosting.TypedFile
	page  hosting.SiteSet        // what the site's landing page shows of it
	days  []hosting.ChangeCounts // the changes its Change Lists list, by day
}

// A Site writes the files of the whole output directory: the
// configuration of its hosts and, for a site of sets, its landing page.
type Site struct {
	Out         string // the output directory
	DocsURL     uri.Base
	Describedby string
	Hosts       []string
	Templates   fs.FS     // the embedded templates if nil
	At          time.Time // the snapshot
	Notice      func(string)
}

// Write stages the files of the site of parts, once each part's pages
// are staged. One unnamed part is a build without sets: its hosts' files
// and landing page are its own. Sets share the hosts' files (the upload
// script uploads the resources only if every set's are in the output
// directory) and get a landing page listing them.
func (site *Site) Write(stg *stage.Stage, parts []*Part) error {
	if len(parts) == 1 && parts[0].Name == "" {
		if err := site.stageHosts(stg, parts[0].Data); err != nil {
			return err
		}
		robotsNotice(site.DocsURL, site.Out, parts[0].Data.ResourceListURL, site.Notice)
		return nil
	}
	if len(site.Hosts) > 0 {
		du, err := url.Parse(site.DocsURL.String())
		if err != nil {
			return err
		}
		d := *parts[0].Data
		d.Hosts, d.SetDirs = site.Hosts, true
		d.DocsPath = du.EscapedPath() + stage.DocsDir + "/"
		d.Sets, d.Documents, d.Capabilities = nil, nil, nil
		d.S3 = hosting.S3Data{ContentHere: true}
		for _, p := range parts {
			d.Sets = append(d.Sets, p.Data.Sets...)
			for _, t := range p.Data.S3.Top {
				d.S3.Top = append(d.S3.Top, p.Name+"/"+t)
			}
			for _, doc := range p.Data.Documents {
				doc.Name = p.Name + "/" + doc.Name
				d.Documents = append(d.Documents, doc)
			}
			d.S3.ContentHere = d.S3.ContentHere && p.Here
			d.S3.FollowLinks = d.S3.FollowLinks || p.Data.S3.FollowLinks
			d.S3.Typed = append(d.S3.Typed, p.Typed...)
		}
		if !d.S3.ContentHere {
			d.S3.Typed = nil
		}
		if err := site.stageHosts(stg, &d); err != nil {
			return err
		}
	}
	return site.stagePage(stg, parts)
}

// stageHosts renders and stages the configuration of the site's hosts;
// the pages rendered with it are each set's (Set.Part).
func (site *Site) stageHosts(stg *stage.Stage, d *hosting.Data) error {
	files, err := hosting.Render(cmp.Or[fs.FS](site.Templates, templates.FS), site.Hosts, d)
	if err != nil {
		return err
	}
	files = slices.DeleteFunc(files, func(f hosting.File) bool { return strings.HasPrefix(f.Name, stage.DocsDir+"/") })
	return stageFiles(stg, site.Out, site.Hosts, files, site.Notice)
}

// stagePage stages the landing page of a site of sets in the documents
// directory, which rsgen owns whole: no file of the user's is in its way.
func (site *Site) stagePage(stg *stage.Stage, parts []*Part) error {
	d := &hosting.SiteData{DocsURL: site.DocsURL.String(), SourceDescriptionURL: site.DocsURL.String() + stage.WellKnownFile,
		Describedby: site.Describedby, At: rsxml.FormatTime(site.At)}
	days := dayCounts{}
	for _, p := range parts {
		d.Sets = append(d.Sets, p.page)
		for _, c := range p.days {
			days.add(c)
		}
	}
	d.Chart = hosting.ChangeChart(days.sorted(), site.At)
	page, err := hosting.RenderSite(cmp.Or[fs.FS](site.Templates, templates.FS), d)
	if err != nil {
		return err
	}
	if err := stg.WriteFile(hosting.LandingPage, page); err != nil {
		return fmt.Errorf("writing %s: %w", hosting.LandingPage, err)
	}
	return nil
}

// countChanges counts by day the changes the staged Change Lists of the
// set of w list, one entry at a time.
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

// readList calls each with the entries of the staged list name, or
// returns the locs of an index.
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
