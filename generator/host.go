package generator

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/regfile"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
	"github.com/rsgen/rsgen/internal/uri"
	"github.com/rsgen/rsgen/templates"
)

// cloudflareMaxRules is how many rules of a _headers file Cloudflare Pages applies.
const cloudflareMaxRules = 100

// writeHostFiles stages the pages rsgen always writes (landing page,
// robots.txt line, HTML head link) and the configuration of cfg.Hosts,
// from the templates. It runs after every document is staged.
func (b *build) writeHostFiles(resources *spill.ResourceSpool, completed time.Time) error {
	files, err := b.renderHostFiles(resources, completed)
	if err != nil {
		return err
	}
	if err := writeHostFiles(b.stage, b.cfg.Out, b.cfg.Hosts, files, b.notice); err != nil {
		return err
	}
	b.robotsNotice(b.docs.URL("resourcelist.xml"))
	return nil
}

// writeHostFiles stages files, rendered for hosts, into stg, the stage of
// the output directory out: a configuration file the user wrote gets
// rsgen's part in its block.
func writeHostFiles(stg *Stage, out string, hosts []string, files []hosting.File, notice func(string)) error {
	for _, f := range files {
		if f.Name == hosting.NoJekyll {
			if _, err := os.Lstat(filepath.Join(out, f.Name)); err == nil {
				continue // the site has one already: it does the same
			}
		}
		data := f.Data
		if hosting.Mergeable(f.Name) {
			p := filepath.Join(out, f.Name)
			theirs, err := hosting.ReadConfig(p) // never waits on a FIFO
			if err == nil && !hosting.Ours(theirs) {
				merged, ok := hosting.Merge(theirs, data)
				if !ok { // its block went away since checkHostFiles
					return fmt.Errorf("%w: %s %w", ErrHostFile, p, hosting.ErrNotOurs)
				}
				data = merged
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("reading %s: %w", p, err)
			}
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

// renderHostFiles renders the pages and the files of cfg.Hosts.
func (b *build) renderHostFiles(resources *spill.ResourceSpool, completed time.Time) ([]hosting.File, error) {
	fsys := b.cfg.Templates
	if fsys == nil {
		fsys = templates.FS
	}
	d, err := b.hostData(resources, completed)
	if err != nil {
		return nil, err
	}
	return hosting.Render(fsys, b.cfg.Hosts, d)
}

// robotsNotice tells when the site's own robots.txt does not name the
// Resource List (section 6.3.4). rsgen never writes that file.
func (b *build) robotsNotice(resourceList string) {
	u, err := url.Parse(b.cfg.DocsURL.String())
	if err != nil || u.Path != "/" {
		return // robots.txt counts at the root of a host only
	}
	f, _, err := regfile.Open(filepath.Join(b.cfg.Out, "robots.txt")) // a FIFO is not waited on
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "sitemap") && strings.TrimSpace(v) == resourceList {
			return
		}
	}
	b.notice(fmt.Sprintf("robots.txt does not name the Resource List: add the line 'Sitemap: %s' (as in %s)", resourceList, hosting.RobotsLines))
}

// hostData gathers what the templates show.
func (b *build) hostData(resources *spill.ResourceSpool, completed time.Time) (*hosting.Data, error) {
	docs, base := b.cfg.DocsURL.String(), b.cfg.BaseURL.String()
	du, err := url.Parse(docs)
	if err != nil {
		return nil, err
	}
	bu, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	d := &hosting.Data{
		Hosts:                 b.cfg.Hosts,
		BaseURL:               base,
		DocsURL:               docs,
		HostURL:               du.Scheme + "://" + du.Host + "/",
		SitePath:              du.EscapedPath(),
		DocsPath:              du.EscapedPath() + uri.EscapePath(b.docs.Dir) + "/",
		SourceDescriptionPath: du.EscapedPath() + WellKnownFile,
		SourceDescriptionURL:  b.docs.SourceDescriptionURL(),
		CapabilityListURL:     b.docs.CapabilityListURL(),
		ResourceListURL:       b.docs.URL("resourcelist.xml"),
		Describedby:           b.cfg.Describedby,
		At:                    rsxml.FormatTime(b.at),
		Completed:             rsxml.FormatTime(completed),
		Hashes:                b.cfg.Hashes.String(),
	}
	if bu.Scheme == du.Scheme && bu.Host == du.Host {
		d.ContentPath = bu.EscapedPath()
	}
	d.Sets = []hosting.SetData{{Name: b.cfg.Set, ContentPath: d.ContentPath, CapabilityListURL: d.CapabilityListURL, ResourceListURL: d.ResourceListURL}}
	if resources != nil {
		d.Resources, d.Bytes = resources.Len(), resources.Bytes
	}
	if b.export != nil { // a record export has no spool of resources: see package exports
		d.Resources, d.Bytes = b.export.Listed, b.export.Bytes
	}
	d.Size = units.FormatSize(d.Bytes)
	for _, c := range b.docs.Caps {
		capability := hosting.Capability{Capability: c.MD.Capability, Name: capabilityNames[c.MD.Capability], URL: c.Loc, Href: c.Loc}
		if name, ok := strings.CutPrefix(c.Loc, b.docs.URL("")); ok {
			d.S3.Top = append(d.S3.Top, name)
			capability.Href = name
		}
		d.Capabilities = append(d.Capabilities, capability)
	}
	// An archive first: changelist.xml links to it (rel="archives"), and
	// the script uploads a document after those it leads to.
	archiveFirst := func(name string) int {
		if strings.Contains(name, "-archive") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(d.S3.Top, func(a, b string) int { return cmp.Compare(archiveFirst(a), archiveFirst(b)) })
	d.S3.Top = append(d.S3.Top, "capabilitylist.xml")
	if info, err := os.Stat(b.stage.Path(WellKnownFile)); err == nil {
		d.SourceDescriptionSize = units.FormatSize(info.Size())
	}
	for _, name := range b.stage.Files() {
		rel, ok := strings.CutPrefix(name, b.docs.Dir+"/")
		if !ok {
			continue
		}
		info, err := os.Stat(b.stage.Path(name))
		if err != nil {
			return nil, err
		}
		d.Documents = append(d.Documents, hosting.Document{Name: rel, URL: b.docs.URL(rel), Path: d.DocsPath + uri.EscapePath(rel),
			Bytes: info.Size(), Size: units.FormatSize(info.Size()), XML: strings.HasSuffix(rel, ".xml")})
	}
	slices.SortFunc(d.Documents, func(a, b hosting.Document) int { return strings.Compare(a.Name, b.Name) })
	// The resources are uploaded from the output directory if they are in
	// it and served where the documents' directory says: with a base URL
	// of another path than the documents', the files would go under keys
	// their URLs do not have.
	if b.outRel == "" && bu.Scheme == du.Scheme && bu.Host == du.Host && bu.EscapedPath() == du.EscapedPath() {
		d.S3.ContentHere = true
		if slices.Contains(b.cfg.Hosts, hosting.S3) {
			if d.S3.Typed, err = typedFiles(resources, ""); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// typedFiles are the files of resources that the upload script gives a
// type of their own, their paths under prefix (a directory of the output,
// slash-separated and ending in "/", or "").
func typedFiles(resources *spill.ResourceSpool, prefix string) ([]hosting.TypedFile, error) {
	var typed []hosting.TypedFile
	if resources == nil {
		return nil, nil
	}
	err := resources.Each(func(r *Resource) error {
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

// checkHostFiles fails a build, before it scans anything, when a file the
// hosts need exists in the output and is the user's.
func checkHostFiles(cfg *Config) error {
	err := hosting.CheckConflicts(cfg.Out, cfg.Hosts)
	if errors.Is(err, hosting.ErrNotOurs) {
		return fmt.Errorf("%w: %w", ErrHostFile, err)
	}
	return err
}

// ErrHostFile reports a configuration file for a host that the user wrote.
var ErrHostFile = errors.New("a configuration file for a static host")
