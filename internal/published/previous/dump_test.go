package previous

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadChangeDump(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "dump")
	site, err := readAll(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cd := site.ChangeDump
	if cd == nil || len(cd.Packages) != 2 {
		t.Fatalf("change dump %+v", cd)
	}
	for i, want := range []struct{ name, from, until string }{
		{"changedump-20240602T000000Z-00001", "2024-06-01T00:00:00Z", "2024-06-02T00:00:00Z"},
		{"changedump-20240603T000000Z-00001", "2024-06-02T00:00:00Z", "2024-06-03T00:00:00Z"},
	} {
		p := &cd.Packages[i]
		if p.Rel != "resourcesync/"+want.name+".zip" || p.From != want.from || p.Until != want.until || len(p.Hash) != 1 || p.Length <= 0 {
			t.Errorf("package %d: %+v", i, p)
		}
		if p.Content == nil || p.Content.Rel != "resourcesync/"+want.name+".manifest.xml" {
			t.Errorf("package %d: manifest copy %+v", i, p.Content)
		}
		zip, _ := os.ReadFile(filepath.Join(dir, "resourcesync", want.name+".zip"))
		rc, err := site.OpenPackage(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, zip) {
			t.Errorf("package %d: read %d bytes (%v), want %d", i, len(got), err, len(zip))
		}
		if local, ok := site.LocalPath(p.URL); !ok || local != filepath.Join(dir, "resourcesync", want.name+".zip") {
			t.Errorf("package %d at %q", i, local)
		}
	}
}

func TestReadChangeDumpOverHTTP(t *testing.T) {
	t.Parallel()
	s := serve(t)
	dir := fixture(t, "dump")
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return true
		}
		if strings.HasSuffix(r.URL.Path, ".zip") {
			w.Write(b)
			return true
		}
		w.Write([]byte(strings.ReplaceAll(string(b), "https://example.org/", s.srv.URL+"/")))
		return true
	})
	site, err := readAll(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	p := &site.ChangeDump.Packages[0]
	if _, ok := site.LocalPath(p.URL); ok {
		t.Error("a package served over HTTP has a local path")
	}
	rc, err := site.OpenPackage(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if int64(len(got)) != p.Length {
		t.Errorf("read %d bytes, want %d", len(got), p.Length)
	}
	// A package longer than its entry says is refused: by its
	// Content-Length, or once it passes that length as it streams.
	p.Length--
	for _, chunked := range []bool{false, true} {
		s.set(func(w http.ResponseWriter, r *http.Request) bool {
			b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
			if chunked {
				w.Write(b[:10])
				w.(http.Flusher).Flush()
				w.Write(b[10:])
			} else {
				w.Write(b)
			}
			return true
		})
		rc, err = site.OpenPackage(context.Background(), p)
		if err == nil {
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		if !errors.Is(err, ErrLimit) {
			t.Errorf("a package longer than its entry says (chunked %v): %v", chunked, err)
		}
	}
}

func TestReadChangeDumpErrors(t *testing.T) {
	t.Parallel()
	const (
		dump     = "resourcesync/changedump.xml"
		manifest = "resourcesync/changedump-20240603T000000Z-00001.manifest.xml"
	)
	tests := []struct {
		name   string
		mutate func(t *testing.T, dir string)
		opts   Options
		kind   error
		doc    string
		msg    string
	}{
		{"not a ZIP", func(t *testing.T, dir string) {
			edit(t, dir, dump, `type="application/zip"`, `type="application/x-tar"`)
		}, Options{}, ErrInvalid, dump, "ZIP packages only"},
		{"a manifest of another interval", func(t *testing.T, dir string) {
			edit(t, dir, manifest, `from="2024-06-02T00:00:00Z"`, `from="2024-06-02T01:00:00Z"`)
		}, Options{}, ErrInvalid, dump, "its manifest gives from=2024-06-02T01:00:00Z, but the package's entry gives from=2024-06-02T00:00:00Z"},
		{"a manifest of another capability", func(t *testing.T, dir string) {
			edit(t, dir, manifest, `capability="changedump-manifest"`, `capability="resourcedump-manifest"`)
		}, Options{}, ErrCapability, manifest, "changedump-manifest"},
		{"packages out of order", func(t *testing.T, dir string) {
			edit(t, dir, dump, `from="2024-06-02T00:00:00Z" until="2024-06-03T00:00:00Z"`, `from="2024-06-01T12:00:00Z" until="2024-06-03T00:00:00Z"`)
		}, Options{}, ErrInvalid, dump, "may not overlap"},
		{"a package too large", nil, Options{maxPackageBytes: 1000}, ErrLimit, dump, "larger than the 1000 allowed"},
		{"a malformed length", func(t *testing.T, dir string) {
			edit(t, dir, dump, `length="632"`, `length="big"`)
		}, Options{}, ErrInvalid, dump, "is not an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "dump")
			if tt.mutate != nil {
				tt.mutate(t, dir)
			}
			_, err := readAll(context.Background(), dir, tt.opts)
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, tt.kind) {
				t.Fatalf("error %v, want one of kind %v", err, tt.kind)
			}
			if !strings.HasSuffix(filepath.ToSlash(pe.Doc), tt.doc) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q, want one in …%s saying %q", err, tt.doc, tt.msg)
			}
		})
	}
}
