package hosting

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	texttemplate "text/template"
)

// Data is what the templates see: the URLs and paths of the published
// documents, what the build published, and what each host needs.
type Data struct {
	Hosts []string // the hosts asked for

	BaseURL string // where the resources are served
	DocsURL string // where the output directory is served
	HostURL string // the root of the host that serves it: scheme://host/

	SitePath              string // URL path of the output directory: "/" or "/project/"
	DocsPath              string // URL path of resourcesync/
	SourceDescriptionPath string // URL path of .well-known/resourcesync
	SiteRel               string // the output directory relative to the documents' directory: "../", or "../../" for a set's
	ContentPath           string // URL path of the resources if the same host serves them, else ""

	SourceDescriptionURL  string
	SourceDescriptionSize string
	CapabilityListURL     string
	ResourceListURL       string
	Describedby           string

	At, Completed string // the snapshot: W3C Datetimes
	Resources     int    // resources published
	Bytes         int64  // their size
	Size          string // their size for people ("1.3 KiB")
	Hashes        string // the digests published ("sha-256")

	Capabilities []Capability      // what the Capability List lists, in its order
	Changes      []ChangeCounts    // what its Change Lists list, by day, in order
	Chart        htmltemplate.HTML // Changes drawn (ChangeChart); "" if none
	Documents    []Document        // every file under resourcesync/ but the pages, by name
	S3           S3Data

	// Sets are the resource sets published, each with its Capability
	// List: one, named "", for a build without sets, whose fields are
	// those above. SetDirs says the documents of each set are in
	// resourcesync/<name>/ (rsgen build --config), and the pages too.
	Sets    []SetData
	SetDirs bool
}

// SetData is one resource set of the output.
type SetData struct {
	Name              string
	ContentPath       string // URL path of its resources if the same host serves them, else ""
	CapabilityListURL string
	ResourceListURL   string
}

// Capability is an entry of the Capability List.
type Capability struct {
	Capability string // resourcelist, changelist, …
	Name       string // Resource List, Change List, …
	URL        string
	Href       string // URL relative to resourcesync/ where it is under it, else URL
}

// Document is a file rsgen published under resourcesync/.
type Document struct {
	Name  string // relative to resourcesync/
	URL   string
	Path  string // URL path
	Bytes int64
	Size  string // for people
	XML   bool   // a ResourceSync document (served as application/xml)
}

// S3Data is what the upload script needs.
type S3Data struct {
	ContentHere bool        // the resources are in the output directory
	Typed       []TypedFile // published files to upload with an explicit type
	Top         []string    // documents under resourcesync/ to upload last, in order
	FollowLinks bool        // the build followed symbolic links (--follow-symlinks): so does the upload; else it uploads none
}

// TypedFile is a published file and its media type.
type TypedFile struct {
	Path string // relative to the output directory, slash-separated
	Type string
}

// A File is a file to publish, relative to the output directory.
type File struct {
	Name string
	Data []byte
}

var funcs = map[string]any{
	"join":    strings.Join,
	"shquote": shquote,
	"awsglob": awsGlob,
	"inc":     func(n int) int { return n + 1 },
	// nginx.conf.tmpl and htaccess.tmpl: paths.go
	"nginxloc":     nginxLocation,
	"nginxstr":     nginxString,
	"apachestr":    apacheString,
	"apacheregexp": apacheRegexp,
	"apachehdr":    apacheHeader,
}

// Render renders from the templates of fsys the files the hosts need, in
// the order of RootFiles, then the pages. A configuration file without
// Marker (a user's template dropped it) gets it added.
func Render(fsys fs.FS, hosts []string, d *Data) ([]File, error) {
	var files []File
	for _, o := range outputs {
		if !o.wanted(hosts) {
			continue
		}
		if o.template == "" {
			files = append(files, File{Name: o.name})
			continue
		}
		data, err := execute(fsys, o.template, d)
		if err != nil {
			return nil, err
		}
		if o.hosts != nil && !Ours(data) {
			data = addMarker(data)
		}
		files = append(files, File{Name: o.name, Data: data})
	}
	return files, nil
}

// execute renders the template name of fsys with d, a page with
// html/template.
func execute(fsys fs.FS, name string, d any) ([]byte, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	var t interface{ Execute(io.Writer, any) error }
	if strings.HasSuffix(name, ".html.tmpl") {
		t, err = htmltemplate.New(name).Funcs(funcs).Option("missingkey=error").Parse(string(src))
	} else {
		t, err = texttemplate.New(name).Funcs(funcs).Option("missingkey=error").Parse(string(src))
	}
	var buf bytes.Buffer
	if err == nil {
		err = t.Execute(&buf, d)
	}
	if he := (*HostError)(nil); errors.As(err, &he) {
		return nil, he // a template that calls a function of the hosts fails with its words alone
	}
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// addMarker puts a comment with Marker first, or after a #! line.
func addMarker(data []byte) []byte {
	comment := []byte("# " + Marker + " from a template of --templates; rsgen rewrites this file at every build.\n")
	if bytes.HasPrefix(data, []byte("#!")) {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		return slices.Concat(line, []byte("\n"), comment, rest)
	}
	return append(comment, data...)
}

func shquote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// awsGlob is a filter of the AWS CLI (--exclude, --include: Python's
// fnmatch) that matches the path p only.
func awsGlob(p string) string {
	var sb strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[':
			sb.WriteString("[" + string(r) + "]")
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// awsGuesses are extensions whose type the AWS CLI (Python's mimetypes)
// guesses as rsgen's table names it. Files with other extensions, or none,
// are uploaded with an explicit type.
var awsGuesses = map[string]string{
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".txt": "text/plain", ".csv": "text/csv",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".svg": "image/svg+xml",
	".tif": "image/tiff", ".tiff": "image/tiff", ".pdf": "application/pdf", ".json": "application/json",
	".zip": "application/zip", ".mp3": "audio/mpeg", ".mp4": "video/mp4",
}

// UploadedTyped reports whether the upload script uploads f on its own
// with an explicit type (S3.Typed): its extension does not tell the AWS CLI
// the type the Resource List gives, or it is hidden, which the script's
// sync leaves out.
func UploadedTyped(f TypedFile) bool {
	hidden := strings.HasPrefix(f.Path, ".") || strings.Contains(f.Path, "/.")
	return f.Type != "" && (hidden || awsGuesses[strings.ToLower(path.Ext(f.Path))] != f.Type)
}

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
