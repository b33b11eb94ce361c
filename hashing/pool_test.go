package hashing

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// collect runs p over jobs and returns the results by Name.
func collect(t *testing.T, p *Pool, jobs []Job) map[string]Result {
	t.Helper()
	in := make(chan Job)
	out := make(chan Result)
	go func() {
		defer close(in)
		for _, j := range jobs {
			in <- j
		}
	}()
	errc := make(chan error, 1)
	go func() {
		defer close(out)
		errc <- p.Run(context.Background(), in, out)
	}()
	got := map[string]Result{}
	for res := range out {
		if _, dup := got[res.Name]; dup {
			t.Errorf("two results for %s", res.Name)
		}
		got[res.Name] = res
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run = %v", err)
	}
	return got
}

func TestPoolResults(t *testing.T) {
	dir := t.TempDir()
	var jobs []Job
	contents := map[string][]byte{}
	for i := range 50 {
		name := "f" + strconv.Itoa(i)
		data := bytes.Repeat([]byte{byte(i)}, i*997)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		contents[name] = data
		jobs = append(jobs, Job{Name: name, Path: filepath.Join(dir, name), Sniff: i%2 == 0})
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Files that cannot be read are reported each in its result and do
	// not stop the others.
	jobs = append(jobs,
		Job{Name: "missing", Path: filepath.Join(dir, "missing")},
		Job{Name: "sub", Path: filepath.Join(dir, "sub")},
	)
	for _, workers := range []int{0, 1, 3, 16} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			p := &Pool{Set: Set{SHA256}, Workers: workers}
			got := collect(t, p, jobs)
			if len(got) != len(jobs) {
				t.Fatalf("%d results for %d jobs", len(got), len(jobs))
			}
			for name, data := range contents {
				res := got[name]
				if res.Err != nil {
					t.Errorf("%s: %v", name, res.Err)
					continue
				}
				want := sha256.Sum256(data)
				if !bytes.Equal(res.Sum, want[:]) || res.Info.Size != int64(len(data)) {
					t.Errorf("%s: sum %x size %d, want %x size %d", name, res.Sum, res.Info.Size, want, len(data))
				}
				if res.Sniff {
					if !bytes.Equal(res.Head, data[:min(len(data), SniffLen)]) {
						t.Errorf("%s: Head is not the first bytes", name)
					}
				} else if res.Head != nil {
					t.Errorf("%s: Head set without Sniff", name)
				}
			}
			if err := got["missing"].Err; !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing: err = %v, want ErrNotExist", err)
			}
			if err := got["sub"].Err; !errors.Is(err, ErrNotRegular) {
				t.Errorf("sub: err = %v, want ErrNotRegular", err)
			}
		})
	}
}

// TestPoolCancel cancels a pool whose jobs never end and whose results
// nobody reads: Run must return the context's error, and every worker
// must be gone.
func TestPoolCancel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		workers int
		feed    bool // send jobs that block on the unread results
	}{
		{"idle workers", 4, false},
		{"workers blocked on results", 4, true},
		{"one worker", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			jobs := make(chan Job) // never closed
			results := make(chan Result)
			errc := make(chan error, 1)
			p := &Pool{Set: Set{SHA256}, Workers: tt.workers}
			go func() { errc <- p.Run(ctx, jobs, results) }()
			if tt.feed {
				for range tt.workers {
					jobs <- Job{Name: "f", Path: path}
				}
			}
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run = %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after the context was cancelled")
			}
			// Goroutines of the pool may take a moment to be accounted gone.
			deadline := time.Now().Add(10 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines left over (%d before):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// TestHasherReuse hashes different inputs in turn with one Hasher: each
// sum must equal that of a fresh Hasher, whatever came before.
func TestHasherReuse(t *testing.T) {
	inputs := [][]byte{
		[]byte("abc"),
		nil,
		bytes.Repeat([]byte("0123456789"), 100000),
		[]byte("abc"),
		bytes.Repeat([]byte{0}, SniffLen-1),
	}
	set := Set{MD5, SHA1, SHA256, BLAKE3}
	reused := NewHasher(set)
	var sums []string
	for i, in := range inputs {
		_, got, err := reused.Sum(nil, bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := NewHasher(set).Sum(nil, bytes.NewReader(in))
		if !bytes.Equal(got, want) {
			t.Errorf("input %d: reused Hasher gives %x, a fresh one %x", i, got, want)
		}
		if !bytes.Equal(reused.Head(), in[:min(len(in), SniffLen)]) {
			t.Errorf("input %d: Head = %q", i, reused.Head())
		}
		sums = append(sums, set.Format(got))
	}
	if sums[0] != sums[3] {
		t.Errorf("same input, different sums: %s, %s", sums[0], sums[3])
	}
	if sums[0] == sums[1] || sums[1] == sums[2] {
		t.Errorf("different inputs, same sum: %v", sums)
	}
}

func TestDefaultWorkers(t *testing.T) {
	if n := DefaultWorkers(); n < runtime.GOMAXPROCS(0) {
		t.Errorf("DefaultWorkers = %d, fewer than GOMAXPROCS (%d): the cores would idle on a warm cache", n, runtime.GOMAXPROCS(0))
	}
}

// TestPoolStopsInsideALargeFile checks that cancelling the pool stops the
// reading of a file already being hashed, instead of finishing it: a
// sparse 8 GiB file would take tens of seconds to hash on two cores.
func TestPoolStopsInsideALargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse file here: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	h := NewHasher(Set{SHA256})
	h.ctx = ctx
	r := &signalReader{r: mustOpen(t, path), started: started}
	go func() {
		<-started
		cancel()
	}()
	n, _, err := h.sum(nil, r, 8<<30)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("sum after cancel: err = %v after %d bytes, want context.Canceled", err, n)
	}
	if n >= 8<<30 {
		t.Fatalf("the whole file was read (%d bytes) despite the cancel", n)
	}
}

// signalReader closes started after its first read.
type signalReader struct {
	r       io.Reader
	started chan struct{}
	once    sync.Once
}

func (s *signalReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.once.Do(func() { close(s.started) })
	return n, err
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// closeErr is a stream whose Close fails.
type closeErr struct{ io.Reader }

func (closeErr) Close() error { return errors.New("close failed") }

// A Job with Open hashes the stream it opens, to its end, as a file of
// those bytes would be; failures to open, read or close are its Result's.
func TestPoolOpenJobs(t *testing.T) {
	body := bytes.Repeat([]byte("member "), 100000)
	open := func(r io.Reader) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return io.NopCloser(r), nil }
	}
	p := &Pool{Set: Set{SHA256}, Workers: 3}
	got := collect(t, p, []Job{
		{Name: "stream", Sniff: true, Open: open(bytes.NewReader(body))},
		{Name: "empty", Open: open(bytes.NewReader(nil))},
		{Name: "unopened", Open: func() (io.ReadCloser, error) { return nil, fs.ErrPermission }},
		{Name: "unclosed", Open: func() (io.ReadCloser, error) { return closeErr{bytes.NewReader(body)}, nil }},
		{Name: "unread", Open: open(iotestErrReader{})},
	})
	want := sha256.Sum256(body)
	if r := got["stream"]; r.Err != nil || !bytes.Equal(r.Sum, want[:]) || r.Info.Size != int64(len(body)) || !bytes.HasPrefix(body, r.Head) || len(r.Head) == 0 {
		t.Errorf("stream: %v, size %d, sum %x, head %q", r.Err, r.Info.Size, r.Sum, r.Head)
	}
	empty := sha256.Sum256(nil)
	if r := got["empty"]; r.Err != nil || !bytes.Equal(r.Sum, empty[:]) || r.Info.Size != 0 {
		t.Errorf("empty: %v, size %d, sum %x", r.Err, r.Info.Size, r.Sum)
	}
	for name, want := range map[string]string{"unopened": "permission denied", "unclosed": "close failed", "unread": "read failed"} {
		if r := got[name]; r.Err == nil || r.Err.Error() != want && !errors.Is(r.Err, fs.ErrPermission) {
			t.Errorf("%s: %v, want %q", name, r.Err, want)
		}
	}
}

// TestPoolStoredJobs: the digests a source keeps spare the read; where it
// has not all of them the stream is read, and its error is the job's.
func TestPoolStoredJobs(t *testing.T) {
	t.Parallel()
	body := []byte("object")
	sum := sha256.Sum256(body)
	kept := bytes.Repeat([]byte{7}, 32)
	unopened := func() (io.ReadCloser, error) { return nil, errors.New("read although stored") }
	p := &Pool{Set: Set{SHA256}, Workers: 2}
	got := collect(t, p, []Job{
		{Name: "stored", Open: unopened, Stored: func() ([]byte, bool, error) { return kept, true, nil }},
		{Name: "read", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
			Stored: func() ([]byte, bool, error) { return nil, false, nil }},
		{Name: "failed", Open: unopened, Stored: func() ([]byte, bool, error) { return nil, false, fs.ErrNotExist }},
	})
	if r := got["stored"]; r.Err != nil || !r.Stored || !bytes.Equal(r.Sum, kept) {
		t.Errorf("stored: %v, stored %v, sum %x", r.Err, r.Stored, r.Sum)
	}
	if r := got["read"]; r.Err != nil || r.Stored || !bytes.Equal(r.Sum, sum[:]) {
		t.Errorf("read: %v, stored %v, sum %x", r.Err, r.Stored, r.Sum)
	}
	if r := got["failed"]; !errors.Is(r.Err, fs.ErrNotExist) || r.Stored {
		t.Errorf("failed: %v, stored %v", r.Err, r.Stored)
	}
}

// iotestErrReader fails every read.
type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errors.New("read failed") }

// Pool.Read hears of the bytes as they are read, several times within a
// file larger than a read, and of all of them.
func TestPoolRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 3*bufSize+5), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls, total atomic.Int64
	p := &Pool{Set: Set{SHA256}, Workers: 2, Read: func(n int64) { calls.Add(1); total.Add(n) }}
	collect(t, p, []Job{{Name: "f", Path: path}})
	if total.Load() != 3*bufSize+5 || calls.Load() < 3 {
		t.Errorf("Read heard of %d bytes in %d calls, want %d in 3 or more", total.Load(), calls.Load(), 3*bufSize+5)
	}
}

// raceEnabled is set by race_test.go under the race detector.
var raceEnabled bool

// The read buffers of a Pool's workers serve the next Pool: a build of many
// resource sets runs one Pool a set, and each allocated 256 KiB a worker.
func TestPoolReusesBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates beside the buffers")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{Name: "f", Path: filepath.Join(dir, "f")}}
	p := &Pool{Set: Set{SHA256}, Workers: 4}
	collect(t, p, jobs)
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		collect(t, p, jobs)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > bufSize {
		t.Errorf("%d bytes allocated a run of 4 workers: their buffers are not reused", per)
	}
}

// Pool.Reads keeps that many reads in flight whatever the Workers: here
// each of 4 streams opens only once all 4 are being opened, which one
// worker alone could never do. The hashing is still bounded by Workers.
func TestPoolReadsInFlight(t *testing.T) {
	const reads = 4
	var opening sync.WaitGroup
	opening.Add(reads)
	all := make(chan struct{})
	go func() { opening.Wait(); close(all) }()
	var jobs []Job
	for i := range reads {
		jobs = append(jobs, Job{Name: strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
			opening.Done()
			select {
			case <-all:
			case <-time.After(time.Minute): // not a timing test: a bound on a hang
				return nil, errors.New("the other reads were not in flight")
			}
			return io.NopCloser(bytes.NewReader([]byte("x"))), nil
		}})
	}
	procs := runtime.GOMAXPROCS(0)
	p := &Pool{Set: Set{SHA256}, Workers: 1, Reads: reads, ReadsBlock: true}
	for name, r := range collect(t, p, jobs) {
		if r.Err != nil {
			t.Errorf("%s: %v", name, r.Err)
		}
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS is %d after the pool, was %d before", got, procs)
	}
}

// slowReader waits for the disk, or so it seems: each read takes longer
// than waitedRead.
type slowReader struct {
	done     bool
	procsMax *atomic.Int64
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	time.Sleep(2 * waitedRead)
	for {
		m := r.procsMax.Load()
		if n := int64(runtime.GOMAXPROCS(0)); n <= m || r.procsMax.CompareAndSwap(m, n) {
			break
		}
	}
	r.done = true
	p[0] = 'x'
	return 1, nil
}

// A Pool whose reads block raises GOMAXPROCS to its reads once that many
// reads waited, and puts it back when it returns.
func TestPoolRaisesProcs(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	reads := procs + 2
	var procsMax atomic.Int64
	var jobs []Job
	for i := range 4 * reads {
		jobs = append(jobs, Job{Name: strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(&slowReader{procsMax: &procsMax}), nil
		}})
	}
	collect(t, &Pool{Set: Set{SHA256}, Workers: 1, Reads: reads, ReadsBlock: true}, jobs)
	if got := procsMax.Load(); got != int64(reads) {
		t.Errorf("GOMAXPROCS was at most %d during the reads, want %d", got, reads)
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS is %d after the pool, was %d before", got, procs)
	}
}
