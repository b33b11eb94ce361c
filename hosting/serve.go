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
	"syscall"
	"time"

	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// A SiteHandler serves an output directory the way a correctly configured
// static host serves it: the Source Description (/.well-known/resourcesync,
// without an extension) and the XML documents under resourcesync/ as
// application/xml, with the discovery Link header of section 6.3.3 on every
// response, naming the Capability List the Source Description lists (read
// again whenever the file changes, so a rebuild shows at once).
//
// It serves only what is inside its directories: each is opened as an
// [os.Root], so that neither a symbolic link nor ".." in a URL leads out of
// it (a link that stays inside is followed, but not to what is not served
// by its own name). Hidden files and directories (but .well-known/ at the
// top), rsgen's configuration for hosts at the top, and what is not a
// regular file or a directory are not served, as on a host set up right.
type SiteHandler struct {
	layers []*os.Root // the output directory, then the content, if any
	files  http.Handler

	mu       sync.Mutex
	modified time.Time
	links    []string // the Link header values, none without a Capability List
}

// Handler serves the output directory dir as [NewHandler] does, without
// content, for as long as the program runs; a directory that cannot be
// opened serves nothing (404).
func Handler(dir string) http.Handler {
	h, err := NewHandler(dir, "")
	if err != nil {
		return http.NotFoundHandler()
	}
	return h
}

// NewHandler serves the output directory dir. When the build wrote its
// documents apart from the collection (rsgen build --out), content is the
// collection, SOURCE: what dir does not have is served from there, as a
// host serving both from one place would. Close the SiteHandler when done.
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

// Close releases the directories.
func (h *SiteHandler) Close() error {
	for _, r := range h.layers {
		r.Close()
	}
	return nil
}

func (h *SiteHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	// Checked here as well as in Open: http.FileServer would redirect a
	// request for a hidden directory (/.git → /.git/) before opening it.
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

// servedType is the media type of the file at the URL path p: the one the
// build gives it in its entry (package mediatype), with the charset Go
// serves it with if Go agrees on the type (text/html; charset=utf-8);
// "" if the build would sniff it, as the file server then does.
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

// hidden reports whether name, a slash-separated path relative to the top
// of the site, is not served: a hidden file or directory, or rsgen's
// configuration for a host at the top. ".." is hidden too.
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

// linkHeader returns the Link headers naming the Capability Lists that the
// Source Description lists (one for each resource set), or its first
// entry if it lists none.
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

// layered is the file system of the site: each name is looked up in the
// layers in turn, and the first that has it serves it. A directory lists
// what every layer has in it.
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
			// Missing, leading outside the layer, not regular: the next
			// layer may have it; a permission error is served as 403.
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
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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

// dir is a directory of the site: what it lists is merged from every
// layer that has it, without what is not served.
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

// served returns the entry rel of r as it is served, nil if it is not: a
// regular file or a directory, or a symbolic link to one inside r, listed
// as what it leads to.
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

// shown reports whether name, which r opens, is served where it really
// is: a symbolic link inside r (content, which anyone who commits to a
// site may add) does not serve a hidden file or rsgen's configuration
// under another name. A path whose links cannot be resolved is not.
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
