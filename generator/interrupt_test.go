package generator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestInterruptedReadingPrevious cancels a build of two sets while it
// reads the previous build over HTTP, at each of the requests it makes in
// turn (its Source Description, Capability Lists, Resource Lists, Change
// Lists…): the build fails with the cancellation, never as a previous
// build that cannot be used, whose hint is to start the history afresh;
// and the output is left as it was.
func TestInterruptedReadingPrevious(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1", "two.html": "2"}, acDay(1))
	d := acNewTree(t, map[string]string{"x.csv": "x", "y.csv": "y"}, acDay(1))
	live := t.TempDir()
	var requests, cancelAt atomic.Int64
	var cancel atomic.Pointer[context.CancelFunc]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == cancelAt.Load() {
			(*cancel.Load())()
		}
		http.FileServer(http.Dir(live)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	siteAt := func(out, prev string, day int) Site {
		base := srv.URL + "/"
		s := Site{Out: out, DocsURL: mustBaseURL(t, base)}
		for _, set := range []struct {
			name string
			tr   *acTree
		}{{"articles", a}, {"data", d}} {
			c := acConfig(set.tr.dir, "", acDay(day))
			c.Set, c.BaseURL = set.name, mustBaseURL(t, base+set.name+"/")
			c.Changes.Previous, c.Changes.FirstBuildOK = prev, true
			c.Changes.HTTPOptions = previous.HTTPOptions{Attempts: 1}
			s.Sets = append(s.Sets, c)
		}
		return s
	}
	mustBuildSite(t, siteAt(live, live, 1))
	a.write("one.html", "one", acDay(2))
	d.remove("x.csv")
	mustBuildSite(t, siteAt(live, live, 2)) // a Change List of each set to carry
	a.write("three.html", "3", acDay(3))

	for n := int64(1); ; n++ {
		out := t.TempDir()
		before := testenv.Snapshot(t, out)
		ctx, stop := context.WithCancel(context.Background())
		cancel.Store(&stop)
		requests.Store(0)
		cancelAt.Store(n)
		_, err := BuildSite(ctx, siteAt(out, srv.URL, 3))
		stop()
		if requests.Load() < n { // every request made, none cancelled
			if err != nil {
				t.Fatalf("the build that was not interrupted: %v", err)
			}
			if n < 5 {
				t.Fatalf("only %d requests to the previous build", n-1)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || errors.Is(err, errPrevious) {
			t.Errorf("cancelled at request %d: error %v, want the cancellation alone", n, err)
		}
		testenv.SameSnapshot(t, "the output", testenv.Snapshot(t, out), before)
	}
}
