package previous

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestNothingPublished checks which failures mean that nothing is
// published at --previous yet (a first deploy), and which do not: only a
// Source Description that does not exist is; a server error, a network
// failure, or a missing document further down never is, since taking them
// for a first build would drop the published change history.
func TestNothingPublished(t *testing.T) {
	t.Parallel()
	const wellKnown = "/.well-known/resourcesync"
	status := func(path string, code int) func(http.ResponseWriter, *http.Request) bool {
		return func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != path {
				return false
			}
			http.Error(w, http.StatusText(code), code)
			return true
		}
	}
	tests := []struct {
		name    string
		read    func(t *testing.T) error
		nothing bool
	}{
		{name: "no such directory", nothing: true, read: func(t *testing.T) error {
			_, err := readAll(context.Background(), filepath.Join(t.TempDir(), "never-built"), Options{})
			return err
		}},
		{name: "directory without a Source Description", nothing: true, read: func(t *testing.T) error {
			_, err := readAll(context.Background(), t.TempDir(), Options{})
			return err
		}},
		{name: "HTTP 404 for the Source Description", nothing: true, read: func(t *testing.T) error {
			s := serve(t)
			s.set(status(wellKnown, http.StatusNotFound))
			_, err := readAll(context.Background(), s.srv.URL+"/", Options{HTTP: fast})
			return err
		}},
		{name: "HTTP 410 for the Source Description", nothing: true, read: func(t *testing.T) error {
			s := serve(t)
			s.set(status(wellKnown, http.StatusGone))
			_, err := readAll(context.Background(), s.srv.URL+"/", Options{HTTP: fast})
			return err
		}},
		{name: "HTTP 500 for the Source Description", read: func(t *testing.T) error {
			s := serve(t)
			s.set(status(wellKnown, http.StatusInternalServerError))
			_, err := readAll(context.Background(), s.srv.URL+"/", Options{HTTP: fast})
			return err
		}},
		{name: "HTTP 403 for the Source Description", read: func(t *testing.T) error {
			s := serve(t)
			s.set(status(wellKnown, http.StatusForbidden))
			_, err := readAll(context.Background(), s.srv.URL+"/", Options{HTTP: fast})
			return err
		}},
		{name: "HTTP 404 for the Capability List", read: func(t *testing.T) error {
			s := serve(t)
			s.set(status("/resourcesync/capabilitylist.xml", http.StatusNotFound))
			_, err := readAll(context.Background(), s.srv.URL+"/", Options{HTTP: fast})
			return err
		}},
		{name: "connection refused", read: func(t *testing.T) error {
			s := serve(t)
			u := s.srv.URL + "/"
			s.srv.Close()
			_, err := readAll(context.Background(), u, Options{HTTP: fast})
			return err
		}},
		{name: "a missing Resource List in a directory", read: func(t *testing.T) error {
			dir := fixture(t, "good")
			if err := os.Remove(filepath.Join(dir, "resourcesync", "resourcelist.xml")); err != nil {
				t.Fatal(err)
			}
			_, err := readAll(context.Background(), dir, Options{})
			return err
		}},
		{name: "a Source Description that is not ResourceSync", read: func(t *testing.T) error {
			dir := fixture(t, "good")
			testenv.WriteFile(t, dir, ".well-known/resourcesync", "<html><body>not found</body></html>")
			_, err := readAll(context.Background(), dir, Options{})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.read(t)
			if err == nil {
				t.Fatal("read succeeded; want a failure")
			}
			if got := errors.Is(err, ErrNothingPublished); got != tt.nothing {
				t.Errorf("errors.Is(%v, ErrNothingPublished) = %v, want %v", err, got, tt.nothing)
			}
		})
	}
}
