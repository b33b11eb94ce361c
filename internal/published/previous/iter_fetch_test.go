package previous

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"
)

// Over HTTP, with an index of three parts, the parts are fetched as the
// entries are read, each once; a part that fails (after its retries) ends
// the pass with an error naming it, after the entries before it, and the
// part after it is never fetched. With a spill directory the next part is
// fetched while one is read; without one, only when it is reached.
func TestResourceIterHTTP(t *testing.T) {
	t.Parallel()
	s := serve(t)
	site, err := Read(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	parts := []string{"/resourcesync/resourcelist-00001.xml", "/resourcesync/resourcelist-00002.xml", "/resourcesync/resourcelist-00003.xml"}
	for _, p := range parts {
		if n := s.count(p); n != 0 {
			t.Errorf("Read fetched %s %d times", p, n)
		}
	}
	key := keyUnder(s.srv.URL + "/")
	loaded, err := readAll(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	for _, spill := range []string{"", t.TempDir()} {
		before := []int{s.count(parts[0]), s.count(parts[1]), s.count(parts[2])}
		fetched := func(i int) int { return s.count(parts[i]) - before[i] }
		got, _, err := iterate(t, site, IterOptions{Key: key, SpillDir: spill})
		if err != nil {
			t.Fatal(err)
		}
		sameEntries(t, got, sortedByKey(loaded.Resources, key))
		if fetched(0) != 1 || fetched(1) != 1 || fetched(2) != 1 {
			t.Errorf("spill %q: the parts fetched %d, %d, %d times, want once each", spill, fetched(0), fetched(1), fetched(2))
		}
	}

	// Part 2 fails: a dropped connection, every time.
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != parts[1] {
			return false
		}
		w.Header().Set("Content-Length", "100000")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		return true
	})
	for _, spill := range []string{"", t.TempDir()} {
		before := []int{s.count(parts[0]), s.count(parts[1]), s.count(parts[2])}
		fetched := func(i int) int { return s.count(parts[i]) - before[i] }
		it, err := site.ResourceIter(context.Background(), IterOptions{Key: key, SpillDir: spill})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for it.Next() {
			if n++; n == 4 && spill == "" && fetched(1) != 0 {
				t.Errorf("part 2 fetched before it was reached, without a spill directory")
			}
		}
		err = it.Err()
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrUnreachable) || pe.Doc != s.srv.URL+parts[1] {
			t.Errorf("spill %q: err = %v, want an *Error of ErrUnreachable naming part 2", spill, err)
		}
		if n != 4 {
			t.Errorf("spill %q: %d entries before the failure, want part 1's 4", spill, n)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if fetched(1) != fast.Attempts || fetched(2) != 0 {
			t.Errorf("spill %q: part 2 fetched %d times (want %d attempts), part 3 %d", spill, fetched(1), fast.Attempts, fetched(2))
		}
		if left, _ := os.ReadDir(spill); spill != "" && len(left) != 0 {
			t.Errorf("files left in the spill directory: %v", left)
		}
	}
}

// With a spill directory, the part after the one being read is fetched
// ahead; an iterator closed meanwhile stops that fetch and leaves no file.
func TestResourceIterFetchAhead(t *testing.T) {
	t.Parallel()
	s := serve(t)
	site, err := Read(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	const part2 = "/resourcesync/resourcelist-00002.xml"
	release := make(chan struct{})
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != part2 {
			return false
		}
		select { // held until the client gives up, or the test ends
		case <-r.Context().Done():
		case <-release:
		}
		return true
	})
	defer close(release)
	spill := t.TempDir()
	it, err := site.ResourceIter(context.Background(), IterOptions{Key: keyUnder(s.srv.URL + "/"), SpillDir: spill})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; s.count(part2) == 0; i++ {
		if i == 500 {
			t.Fatal("part 2 was not fetched ahead while part 1 was read")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(spill); len(left) != 0 {
		t.Errorf("files left in the spill directory after Close: %v", left)
	}
}

// countingSource counts the documents fetched.
type countingSource struct {
	memSource
	parts map[string]int
}

func (c *countingSource) part(ctx context.Context, u string, limit int64, dir string) (io.ReadCloser, error) {
	c.parts[u]++
	return c.memSource.part(ctx, u, limit, dir)
}

// A Resource List of one document is fetched once by Read, which reads
// only its root, and once more by each iterator when it streams it.
func TestResourceListFetchedOnce(t *testing.T) {
	t.Parallel()
	src := &countingSource{loadDocs(t, "testdata/dump"), map[string]int{}}
	r := newReader(Options{})
	r.site = &Site{}
	r.src = src
	site, err := r.read(context.Background(), "https://example.org/"+WellKnown)
	if err != nil {
		t.Fatal(err)
	}
	const list = "https://example.org/resourcesync/resourcelist.xml"
	if n := src.parts[list]; n != 1 {
		t.Errorf("Read fetched the list %d times", n)
	}
	if got, _, err := iterate(t, site, IterOptions{}); err != nil || len(got) == 0 {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	if n := src.parts[list]; n != 2 {
		t.Errorf("fetched %d times after an iterator, want 2", n)
	}
}

// Several iterators read one Site at once (run with -race).
func TestResourceIterConcurrent(t *testing.T) {
	t.Parallel()
	s := serve(t)
	site, err := Read(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	key := keyUnder(s.srv.URL + "/")
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			opt := IterOptions{Key: key, SpillDir: t.TempDir(), Sort: i%2 == 1}
			it, err := site.ResourceIter(context.Background(), opt)
			if err != nil {
				errs <- err
				return
			}
			n := 0
			for it.Next() {
				n++
			}
			err = errors.Join(it.Err(), it.Close())
			if err == nil && n != 9 {
				err = fmt.Errorf("%d entries, want 9", n)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
