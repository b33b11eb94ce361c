package previous

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// A Change List is read again from its file, and a copy that is no
// longer what Read checked (the same size or not) fails at its end with
// ErrChanged, naming the file.
func TestOpenListDirectory(t *testing.T) {
	t.Parallel()
	const rel = "resourcesync/changelist-20240603T000000Z.xml"
	for _, tt := range []struct {
		name   string
		change func(string) string
	}{
		{"unchanged", nil},
		{"the same size", func(s string) string { return strings.Replace(s, "2024-06-02T06:30:00Z", "2024-06-02T06:31:00Z", 1) }},
		{"longer", func(s string) string { return s + "\n" }},
		{"shorter", func(s string) string { return strings.TrimSuffix(s, "\n") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "good")
			site, err := Read(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			cl := &site.ChangeLists[1]
			if cl.Rel != rel {
				t.Fatalf("list 1 is %s", cl.Rel)
			}
			orig, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				testenv.WriteFile(t, dir, rel, tt.change(string(orig)))
			}
			rc, err := site.OpenList(context.Background(), cl)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if tt.change == nil {
				if err != nil || string(got) != string(orig) {
					t.Errorf("read %d bytes again, err %v; want the %d published", len(got), err, len(orig))
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrChanged) || !strings.HasSuffix(filepath.ToSlash(pe.Doc), rel) {
				t.Errorf("err = %v, want an *Error of ErrChanged naming %s", err, rel)
			}
		})
	}
}

// Over HTTP a Change List is fetched again when it is opened, with the
// retries of Read; one the server now serves otherwise fails with
// ErrChanged.
func TestOpenListHTTP(t *testing.T) {
	t.Parallel()
	s := serve(t)
	site, err := Read(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	cl := &site.ChangeLists[0]
	const p = "/resourcesync/changelist-20240602T000000Z.xml"
	if s.count(p) != 1 {
		t.Fatalf("%s fetched %d times by Read", p, s.count(p))
	}
	failed := false
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == p && !failed {
			failed = true
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	rc, err := site.OpenList(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || int64(len(got)) != cl.Bytes || !strings.Contains(string(got), `capability="changelist"`) {
		t.Errorf("read %d bytes again (%v), want %d", len(got), err, cl.Bytes)
	}
	if s.count(p) != 3 {
		t.Errorf("%s fetched %d times, want 3 (Read, a failure, a retry)", p, s.count(p))
	}

	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == p {
			w.Write([]byte(strings.Repeat(" ", int(cl.Bytes))))
			return true
		}
		return false
	})
	rc, err = site.OpenList(context.Background(), cl)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, ErrChanged) {
		t.Errorf("a list served otherwise: err = %v, want ErrChanged", err)
	}
}
