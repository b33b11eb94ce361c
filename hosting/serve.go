package hosting

import (
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// A SiteHandler serves an output directory as a correctly configured static
// host does: the Source Description and the XML documents as
// application/xml, with the discovery Link header of section 6.3.3 on every
// response. Each directory is an [os.Root]: neither a link nor ".." leads
// out of it, and a link inside does not serve what is not served by its own
// name. Hidden files (but .well-known/), rsgen's host configuration and
// what is neither a regular file nor a directory are not served.
type SiteHandler struct {
	layers []*os.Root // the output directory, then the content, if any
	files  http.Handler

	mu       sync.Mutex
	modified time.Time
	links    []string // the Link header values, none without a Capability List
}

// NewHandler serves the output directory dir and, if the build wrote it
// apart from the collection (--out), what dir lacks from content, SOURCE.
func NewHandler(dir, content string) (*SiteHandler, error) {
	h := &SiteHandler{}
	for _, d := range []string{dir, content} {
		if d == "" {
			continue
		}
		r, err := os.OpenRoot(d)
		if err != nil {
			h.Close()
			return nil, err
		}
		h.layers = append(h.layers, r)
	}
	if len(h.layers) == 0 {
		return nil, errors.New("no directory to serve")
	}
	h.files = http.FileServerFS(layered(h.layers))
	return h, nil
}

func (h *SiteHandler) Close() error {
	for _, r := range h.layers {
		r.Close()
	}
	return nil
}

func (h *SiteHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	// Checked before Open too: http.FileServer would redirect /.git to /.git/.
	if hidden(strings.Trim(p, "/")) {
		http.NotFound(w, r)
		return
	}
	for _, l := range h.linkHeader() {
		w.Header().Add("Link", l)
	}
	if p == "/.well-known/resourcesync" || strings.HasPrefix(p, "/resourcesync/") && strings.HasSuffix(p, ".xml") {
		w.Header().Set("Content-Type", "application/xml")
	} else if t := servedType(p); t != "" {
		w.Header().Set("Content-Type", t)
	}
	h.files.ServeHTTP(w, r)
}

// servedType is the media type the build gives the file at the URL path p,
// with Go's charset where Go agrees on the type; "" if the build would
// sniff it, as the file server then does.
func servedType(p string) string {
	if strings.HasSuffix(p, "/") {
		return ""
	}
	t := mediatype.ByName(path.Base(p))
	if t == "" {
		return ""
	}
	if g := mime.TypeByExtension(path.Ext(p)); mediatype.Bare(g) == t {
		return g
	}
	return t
}

// hidden reports whether name, relative to the top of the site, is not
// served: a hidden file or directory (".." too), or a host's configuration.
func hidden(name string) bool {
	if name == "" || name == "." {
		return false
	}
	segs := strings.Split(name, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ".") && !(i == 0 && s == ".well-known") {
			return true
		}
	}
	return len(segs) == 1 && IsRootFile(segs[0])
}

// linkHeader returns the Link headers naming the Capability Lists the
// Source Description lists, or its first entry if it lists none.
func (h *SiteHandler) linkHeader() []string {
	const p = ".well-known/resourcesync"
	info, err := h.layers[0].Stat(p)
	if err != nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if info.ModTime().Equal(h.modified) {
		return h.links
	}
	h.modified, h.links = info.ModTime(), nil
	f, _, err := regfile.OpenIn(h.layers[0], p)
	if err != nil {
		return nil
	}
	defer f.Close()
	_, entries, err := rsxml.ReadAll(f, rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.MD.Capability == rsxml.CapCapabilityList {
			h.links = append(h.links, "<"+e.Loc+`>; rel="resourcesync"`)
		}
	}
	if len(h.links) == 0 && len(entries) > 0 {
		h.links = []string{"<" + entries[0].Loc + `>; rel="resourcesync"`}
	}
	return h.links
}

// layered is the file system of the site: the first layer that has a name
// serves it; a directory lists what every layer has in it.
type layered []*os.Root

func (l layered) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || hidden(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	var d *dir
	for _, r := range l {
		f, st, err := open(r, name)
		if err == nil && !shown(r, name) {
			f.Close()
			err = fs.ErrNotExist
		}
		if err != nil {
			// The next layer may have it; a permission error is a 403.
			if errors.Is(err, fs.ErrPermission) && d == nil {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
			}
			continue
		}
		if !st.IsDir() {
			if d != nil { // a file below a directory of the same name
				f.Close()
				continue
			}
			return f, nil
		}
		if d == nil {
			d = &dir{File: f, name: name}
		} else {
			f.Close()
		}
		d.roots = append(d.roots, r)
	}
	if d == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return d, nil
}

// open opens name inside r without blocking on a FIFO, and refuses what is
// neither a regular file nor a directory.
func open(r *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(name, regfile.OpenFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, nil, fs.ErrNotExist
	}
	return f, st, nil
}

// dir is a directory of the site, listing what every layer has, served.
type dir struct {
	*os.File
	name    string
	roots   []*os.Root // the layers that have it, in order
	entries []fs.DirEntry
	read    bool
}

func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		d.read = true
		seen := map[string]bool{}
		for _, r := range d.roots {
			f, err := r.Open(d.name)
			if err != nil {
				continue
			}
			entries, _ := f.ReadDir(-1)
			f.Close()
			for _, e := range entries {
				rel := path.Join(d.name, e.Name())
				if seen[e.Name()] || hidden(rel) {
					continue
				}
				if e = served(r, rel, e); e == nil {
					continue
				}
				seen[e.Name()] = true
				d.entries = append(d.entries, e)
			}
		}
		slices.SortFunc(d.entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	if n <= 0 {
		all := d.entries
		d.entries = nil
		return all, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(d.entries))
	page := d.entries[:k]
	d.entries = d.entries[k:]
	return page, nil
}

// served returns the entry rel of r as served (a link as what it leads
// to), nil if it is not served.
func served(r *os.Root, rel string, e fs.DirEntry) fs.DirEntry {
	if e.Type()&fs.ModeSymlink == 0 {
		if e.Type().IsRegular() || e.IsDir() {
			return e
		}
		return nil
	}
	st, err := r.Stat(rel)
	if err != nil || !st.Mode().IsRegular() && !st.IsDir() || !shown(r, rel) {
		return nil
	}
	return fs.FileInfoToDirEntry(st)
}

// shown reports whether name is served where its links lead: a link in
// content (which anyone who commits to a site may add) must not serve a
// hidden file or rsgen's configuration under another name.
func shown(r *os.Root, name string) bool {
	var done []string                // the segments resolved, no link among them
	rest := strings.Split(name, "/") // the segments still to resolve
	for hops := 0; len(rest) > 0; {
		s := rest[0]
		rest = rest[1:]
		switch s {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return false
			}
			done = done[:len(done)-1]
			continue
		}
		p := path.Join(append(done, s)...)
		st, err := r.Lstat(p)
		if err != nil {
			return false
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			done = append(done, s)
			continue
		}
		target, err := r.Readlink(p)
		if hops++; err != nil || hops > 40 || path.IsAbs(target) {
			return false
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return !hidden(path.Join(done...))
}
