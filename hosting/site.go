package hosting

import (
	htmltemplate "html/template"
	"io/fs"
)

// SiteData is what the landing page of a site of several sets shows.
type SiteData struct {
	DocsURL              string // where the output directory is served
	SourceDescriptionURL string
	Describedby          string
	At                   string // the snapshot, a W3C Datetime
	Sets                 []SiteSet
	Chart                htmltemplate.HTML // the changes the Change Lists list (ChangeChart); "" if none
}

// SiteSet is one set of a site, as its landing page shows it; links are
// relative to the documents directory.
type SiteSet struct {
	Name              string
	BaseURL           string // where its resources are served
	Resources         int
	Size              string
	Page              string // its own landing page: <name>/index.html
	CapabilityList    string // link to its Capability List
	CapabilityListURL string
	Capabilities      []Capability  // Href relative to the documents directory
	Changes           *ChangeCounts // of this build; nil without a previous build
}

// RenderSite renders the landing page of a site from the template
// site.html.tmpl of fsys.
func RenderSite(fsys fs.FS, d *SiteData) ([]byte, error) { return execute(fsys, "site.html.tmpl", d) }
