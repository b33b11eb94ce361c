package zipdump

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// readerOnly hides every method of a file but Read and Close, as the
// reader of a member of a zip or tar archive does: no Stat, no ReadAt.
type readerOnly struct{ io.ReadCloser }

// openMode is how a test opens the files of a corpus.
type openMode string

const (
	modeFile       openMode = "file"       // *os.File: chunks read at their offsets
	modeReader     openMode = "reader"     // readerOnly: chunks read in order
	modeSequential openMode = "sequential" // readerOnly, opened in order (a tar stream)
)

// seqOpener opens the files of a corpus as the members of a tar stream
// are read, and fails the test if Run does not treat them so: Open must
// be called in the order of the items, from one goroutine at a time, and
// only once the reader before has been read to its end or closed.
type seqOpener struct {
	t    testing.TB
	c    *corpus
	mu   sync.Mutex
	busy bool
	last int // index of the item opened last
	prev *trackedReader
	n    int // Open calls
}

type trackedReader struct {
	io.ReadCloser
	o      *seqOpener
	done   bool // read to its end, or closed
	closed bool
}

func (r *trackedReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err == io.EOF {
		r.o.mu.Lock()
		r.done = true
		r.o.mu.Unlock()
	}
	return n, err
}

func (r *trackedReader) Close() error {
	r.o.mu.Lock()
	r.done, r.closed = true, true
	r.o.mu.Unlock()
	return r.ReadCloser.Close()
}

func (o *seqOpener) open(it *Item) (io.ReadCloser, error) {
	o.mu.Lock()
	if o.busy {
		o.t.Errorf("Open(%s) called while another Open runs", it.Name)
	}
	o.busy = true
	i := slices.IndexFunc(o.c.items, func(x Item) bool { return x.Name == it.Name })
	if o.n > 0 && i <= o.last {
		o.t.Errorf("Open(%s), item %d, after item %d", it.Name, i, o.last)
	}
	if o.prev != nil && !o.prev.done {
		o.t.Errorf("Open(%s) before the reader of item %d was read to its end or closed", it.Name, o.last)
	}
	o.last, o.n = i, o.n+1
	o.mu.Unlock()
	defer func() { o.mu.Lock(); o.busy = false; o.mu.Unlock() }()
	f, err := o.c.open(it)
	if err != nil {
		return nil, err
	}
	r := &trackedReader{ReadCloser: readerOnly{f}, o: o}
	o.mu.Lock()
	o.prev = r
	o.mu.Unlock()
	return r, nil
}

// setMode makes opt open c's files the way mode says.
func setMode(t testing.TB, opt *Options, c *corpus, mode openMode) *seqOpener {
	switch mode {
	case modeReader:
		opt.Open = func(it *Item) (io.ReadCloser, error) {
			f, err := c.open(it)
			if err != nil {
				return nil, err
			}
			return readerOnly{f}, nil
		}
	case modeSequential:
		o := &seqOpener{t: t, c: c}
		opt.Open, opt.Sequential = o.open, true
		return o
	}
	return nil
}

// readOutput returns the files a Run wrote, packages and manifests, in order.
func readOutput(t testing.TB, out string, res *Result) [][]byte {
	t.Helper()
	var got [][]byte
	for _, p := range res.Packages {
		for _, name := range []string{p.Name, p.ManifestName} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b)
		}
	}
	return got
}

// However files are read — at offsets, from start to end, or as a stream
// opened in order — and whatever the number of workers, the packages are
// the same bytes.
func TestRunReadersSameBytes(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, mixedFiles())
	var first [][]byte
	for _, mode := range []openMode{modeFile, modeReader, modeSequential} {
		for _, workers := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/%d", mode, workers), func(t *testing.T) {
				opt, out := testOptions(t, c)
				opt.Workers = workers
				opt.MaxBytes = 3 << 20 // several packages
				o := setMode(t, &opt, c, mode)
				res := run(t, c.items, opt)
				if len(res.Skipped) != 0 {
					t.Fatalf("skipped %v", res.Skipped)
				}
				if o != nil && o.n != len(c.items) {
					t.Errorf("%d items opened, want each of the %d once", o.n, len(c.items))
				}
				got := readOutput(t, out, res)
				if first == nil {
					if paths, _ := verifyAll(t, out, opt.Hashes, res); len(paths) != len(c.items) {
						t.Fatalf("%d packaged of %d", len(paths), len(c.items))
					}
					first = got
					return
				}
				if len(got) != len(first) {
					t.Fatalf("%d files, %d the first time", len(got), len(first))
				}
				for i := range got {
					if !bytes.Equal(got[i], first[i]) {
						t.Errorf("file %d differs from the one written from files read at offsets by one worker", i)
					}
				}
			})
		}
	}
}

// A reader gives no size to check before reading: what changed is found
// by reading, and by the digests.
func TestRunReadersLeaveOutChanged(t *testing.T) {
	t.Parallel()
	files := mixedFiles()
	files["docs/growing.txt"] = testText(9, 2*chunkSize+100)
	for _, mode := range []openMode{modeReader, modeSequential} {
		t.Run(string(mode), func(t *testing.T) {
			c := newCorpus(t, hashing.DefaultSet, files)
			write := func(name string, b []byte) {
				if err := os.WriteFile(filepath.Join(c.dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("a.txt", []byte("hello, world\n"))                                        // grew
			write("docs/report.html", bytes.ToUpper(files["docs/report.html"]))             // same length
			os.Remove(filepath.Join(c.dir, "data/noise.bin"))                               // vanished
			write("data/big noise.bin", files["data/big noise.bin"][:chunkSize+5])          // shrank
			write("docs/growing.txt", append(slices.Clone(files["docs/growing.txt"]), 'x')) // grew past its last chunk
			big := slices.Clone(files["docs/big text.csv"])
			big[chunkSize+10] ^= 1 // its second chunk
			write("docs/big text.csv", big)
			changed := []string{"a.txt", "data/big noise.bin", "data/noise.bin", "docs/big text.csv", "docs/growing.txt", "docs/report.html"}

			opt, out := testOptions(t, c)
			opt.Workers = 3
			setMode(t, &opt, c, mode)
			res := run(t, c.items, opt)
			checkSkippedChanged(t, c, res, changed)
			paths, _ := verifyAll(t, out, opt.Hashes, res)
			if len(paths)+len(changed) != len(c.items) {
				t.Errorf("%d packaged + %d skipped of %d", len(paths), len(changed), len(c.items))
			}
		})
	}
}

// failingReader fails after giving n bytes, as a corrupt member does.
type failingReader struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

func (f *failingReader) Close() error { return nil }

// A reader that fails (a corrupt member of an archive) leaves its item
// out, and the stream goes on with the next.
func TestRunReaderErrors(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, mixedFiles())
	bad := errors.New("zip: checksum error")
	for _, sequential := range []bool{false, true} {
		t.Run(fmt.Sprint("sequential=", sequential), func(t *testing.T) {
			opt, out := testOptions(t, c)
			opt.Sequential = sequential
			opt.Open = func(it *Item) (io.ReadCloser, error) {
				f, err := c.open(it)
				if err != nil {
					return nil, err
				}
				switch it.Name {
				case "docs/report.html", "docs/big text.csv":
					data, _ := io.ReadAll(f)
					f.Close()
					return &failingReader{r: bytes.NewReader(data), n: int(it.Size), err: bad}, nil // fails at its end
				case "data/big noise.bin":
					return &failingReader{r: f, n: chunkSize + 7, err: bad}, nil // fails in its second chunk
				}
				return readerOnly{f}, nil
			}
			res := run(t, c.items, opt)
			var skipped []string
			for _, s := range res.Skipped {
				if !errors.Is(s.Err, bad) || errors.Is(s.Err, ErrChanged) {
					t.Errorf("%s: %v, want the reader's error", c.items[s.Index].Name, s.Err)
				}
				skipped = append(skipped, c.items[s.Index].Name)
			}
			slices.Sort(skipped)
			if want := []string{"data/big noise.bin", "docs/big text.csv", "docs/report.html"}; !slices.Equal(skipped, want) {
				t.Errorf("skipped %q, want %q", skipped, want)
			}
			if paths, _ := verifyAll(t, out, opt.Hashes, res); len(paths) != len(c.items)-3 {
				t.Errorf("%d packaged", len(paths))
			}
		})
	}
}

// Resources that share a bitstream (Item.Also) share its path, in one
// package, which they do not leave for the next.
func TestRunSharedBitstreams(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, map[string][]byte{"a.txt": []byte("a\n"), "b.txt": []byte("b\n"), "c.txt": []byte("c\n")})
	items := slices.Clone(c.items)
	also := func(it Item, locs ...string) []rsxml.Entry {
		var out []rsxml.Entry
		for _, loc := range locs {
			e := it.Entry
			e.Loc = loc
			out = append(out, e)
		}
		return out
	}
	items[0].Also = also(items[0], "https://example.org/a-again")
	items[1].Also = also(items[1], "https://example.org/b2", "https://example.org/b3")
	items[2].Also = also(items[2], "https://example.org/c2", "https://example.org/c3", "https://example.org/c4")
	opt, out := testOptions(t, c)
	opt.MaxEntries = 3
	res := run(t, items, opt)
	// a and its copy fill 2 of 3 entries: b and its two do not fit there;
	// c and its three fit in no manifest.
	if len(res.Skipped) != 1 || res.Skipped[0].Index != 2 || !strings.Contains(res.Skipped[0].Err.Error(), "4 resources") {
		t.Fatalf("skipped %v", res.Skipped)
	}
	if len(res.Packages) != 2 || res.Packages[0].Bitstreams != 1 || res.Packages[1].Bitstreams != 1 {
		t.Fatalf("packages %+v", res.Packages)
	}
	var locs, paths []string
	for _, p := range res.Packages {
		for _, e := range verifyPackage(t, out, opt.Hashes, p).entries {
			locs = append(locs, e.Loc)
			paths = append(paths, e.MD.Path)
		}
	}
	wantLocs := []string{"https://example.org/a.txt", "https://example.org/a-again", "https://example.org/b.txt", "https://example.org/b2", "https://example.org/b3"}
	if !slices.Equal(locs, wantLocs) || !slices.Equal(paths, []string{"/a.txt", "/a.txt", "/b.txt", "/b.txt", "/b.txt"}) {
		t.Errorf("manifests list %q at %q", locs, paths)
	}
}

// countSeq is a Seq whose second pass gives fewer items than its first.
type countSeq struct{ sliceSeq }

func (s countSeq) Items(yield func(*Item) bool) error { return s.sliceSeq[:1].Items(yield) }

func TestRunSeqMismatch(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, map[string][]byte{"a.txt": []byte("a"), "b.txt": []byte("b")})
	opt, _ := testOptions(t, c)
	if _, err := RunSeq(context.Background(), countSeq{sliceSeq(c.items)}, opt); err == nil || !strings.Contains(err.Error(), "1 items, but 2 names") {
		t.Errorf("got %v", err)
	}
	boom := errors.New("boom")
	if _, err := RunSeq(context.Background(), errSeq{sliceSeq(c.items), boom}, opt); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
}

// errSeq fails in its second pass.
type errSeq struct {
	sliceSeq
	err error
}

func (s errSeq) Items(yield func(*Item) bool) error {
	s.sliceSeq.Items(yield)
	return s.err
}
