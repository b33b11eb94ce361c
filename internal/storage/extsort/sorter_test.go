package extsort

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

type rec struct{ key, val string }

func collect(t *testing.T, s *Sorter) []rec {
	t.Helper()
	it, err := s.Iter()
	if err != nil {
		t.Fatal(err)
	}
	var out []rec
	for it.Next() {
		out = append(out, rec{string(it.Key()), string(it.Value())})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSorter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var input []rec
	for i := range 5000 {
		// Long shared prefixes, short keys, keys that are prefixes of others,
		// and many equal keys, whose order of addition must be kept.
		k := fmt.Sprintf("https://example.org/records/%d", rng.IntN(3000))
		switch i % 7 {
		case 0:
			k = k[:rng.IntN(len(k))]
		case 1:
			k += "\x00\x01"
		}
		input = append(input, rec{k, fmt.Sprintf("v%d", i)})
	}
	want := slices.Clone(input)
	slices.SortStableFunc(want, func(a, b rec) int { return bytes.Compare([]byte(a.key), []byte(b.key)) })

	for _, chunk := range []int{0, 4096, 20000} {
		t.Run(fmt.Sprintf("chunk %d", chunk), func(t *testing.T) {
			dir := t.TempDir()
			s := New(dir, chunk)
			for _, r := range input {
				if err := s.Add([]byte(r.key), []byte(r.val)); err != nil {
					t.Fatal(err)
				}
			}
			if chunk == 0 && s.Runs() != 0 || chunk == 4096 && s.Runs() < 10 {
				t.Fatalf("%d runs with chunks of %d bytes", s.Runs(), chunk)
			}
			for pass := range 2 {
				if got := collect(t, s); !slices.Equal(got, want) {
					t.Fatalf("pass %d: %d records out of order or lost (of %d)", pass, len(got), len(want))
				}
				// A sort that spilled is read from its runs alone: it
				// holds no chunk beside the passes.
				if s.Runs() > 0 && s.used+len(s.free)+len(s.spare) > 0 {
					t.Fatalf("pass %d: %d bytes, %d blocks and %d parts still held", pass, s.used, len(s.free), len(s.spare))
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("Close left %d files", len(left))
			}
		})
	}
}

// A chunk's index is sorted in parts of partLen records, merged: records
// of equal keys in several parts, in memory or spilled, keep their order.
func TestSorterParts(t *testing.T) {
	t.Parallel()
	n := 3*partLen + 5
	input := make([]rec, n)
	for i := range input {
		// The prefix all keys share shrinks once the first part is sorted.
		host := "https://example.org/"
		if i > partLen+partLen/2 {
			host = "https://example.com/"
		}
		input[i] = rec{fmt.Sprintf("%sk%03d", host, (i*7919)%1000), fmt.Sprint(i)}
	}
	want := slices.Clone(input)
	slices.SortStableFunc(want, func(a, b rec) int { return strings.Compare(a.key, b.key) })
	for _, chunk := range []int{0, 4 << 20} {
		s := New(t.TempDir(), chunk)
		for _, r := range input {
			if err := s.Add([]byte(r.key), []byte(r.val)); err != nil {
				t.Fatal(err)
			}
		}
		if got := collect(t, s); !slices.Equal(got, want) {
			t.Errorf("chunk %d, %d runs: %d records out of order or lost (of %d)", chunk, s.Runs(), len(got), len(want))
		}
		s.Close()
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir(), 0)
	if got := collect(t, s); len(got) != 0 {
		t.Errorf("empty sorter gave %v", got)
	}
}

func TestRecordTooLarge(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir(), 1000)
	if err := s.Add(make([]byte, 600), nil); err == nil {
		t.Error("a record of more than half a chunk was accepted")
	}
}

func TestSpillFailure(t *testing.T) {
	t.Parallel()
	s := New("/nonexistent/dir", 1000)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = s.Add([]byte(fmt.Sprint(i)), make([]byte, 100))
	}
	if err == nil {
		t.Fatal("no error spilling into a missing directory")
	}
	if _, err := s.Iter(); err == nil {
		t.Error("Iter after a failed spill")
	}
}

func BenchmarkSorter(b *testing.B) {
	const n = 200000
	keys := make([][]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "https://example.org/records/%08d", rng.IntN(1<<30))
	}
	val := make([]byte, 120)
	for _, chunk := range []int{DefaultChunkBytes, 4 << 20} {
		b.Run(fmt.Sprintf("chunk=%dMiB", chunk>>20), func(b *testing.B) {
			for b.Loop() {
				s := New(b.TempDir(), chunk)
				for _, k := range keys {
					s.Add(k, val)
				}
				it, _ := s.Iter()
				for it.Next() {
				}
				s.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}
