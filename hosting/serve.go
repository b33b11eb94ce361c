package hosting

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// Handler serves the output directory dir the way a correctly configured
// static host serves it: the Source Description (/.well-known/resourcesync,
// without an extension) and the XML documents under resourcesync/ as
// application/xml, with the discovery Link header of section 6.3.3 on every
// response, naming the Capability List the Source Description lists (read
// again whenever the file changes, so a rebuild shows at once). Hidden files
// other than .well-known/ and rsgen's configuration for hosts are not
// served, as on a host that is set up right.
func Handler(dir string) http.Handler {
	return &handler{dir: dir, files: http.FileServer(http.Dir(dir))}
}

type handler struct {
	dir   string
	files http.Handler

	mu       sync.Mutex
	modified time.Time
	link     string // the Link header value, "" without a Capability List
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ".") && !(i == 0 && s == ".well-known") || i == 0 && len(segs) == 1 && IsRootFile(s) {
			http.NotFound(w, r)
			return
		}
	}
	if l := h.linkHeader(); l != "" {
		w.Header().Add("Link", l)
	}
	if p == "/.well-known/resourcesync" || strings.HasPrefix(p, "/resourcesync/") && strings.HasSuffix(p, ".xml") {
		w.Header().Set("Content-Type", "application/xml")
	}
	h.files.ServeHTTP(w, r)
}

// linkHeader returns the Link header naming the Capability List that the
// Source Description lists first.
func (h *handler) linkHeader() string {
	p := filepath.Join(h.dir, ".well-known", "resourcesync")
	info, err := os.Stat(p)
	if err != nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if info.ModTime().Equal(h.modified) {
		return h.link
	}
	h.modified, h.link = info.ModTime(), ""
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	_, entries, err := rsxml.ReadAll(f, rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
	if err != nil {
		return ""
	}
	i := slices.IndexFunc(entries, func(e *rsxml.Entry) bool { return e.MD.Capability == rsxml.CapCapabilityList })
	if i < 0 && len(entries) > 0 {
		i = 0
	}
	if i >= 0 {
		h.link = "<" + entries[i].Loc + `>; rel="resourcesync"`
	}
	return h.link
}
