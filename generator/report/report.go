package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsgen/rsgen/internal/text/display"
)

// Unread is what a scan could not read, each reported as a Problem: the
// directories ("" for the root) and the files. They are not gone: the
// build keeps their previous entries.
type Unread struct {
	Dirs, Files []string
}

// A Problem is a file (or a directory, or a record of an export) that was
// not published, and why.
type Problem struct {
	Path string // relative to the source, or the record export
	Line int    // line of a bad record in the export; 0 for a file
	Dir  bool   // Path is a directory that could not be read (wholly or in part): its files are unknown
	Err  error
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return display.Name(p.Path) + ":" + strconv.Itoa(p.Line) + ": " + display.Message(p.Err.Error())
	}
	return display.Name(p.Path) + ": " + display.Message(p.Err.Error())
}

// Stats counts a build's progress; it may be read from other goroutines
// at any time.
type Stats struct {
	Phase    atomic.Int32 // the step the build is at: a Phase
	Found    atomic.Int64 // files found by the walk so far; records of an export read so far
	Hashed   atomic.Int64 // files read and hashed (or failed), or found unchanged in the hash cache
	Cached   atomic.Int64 // files found unchanged in the hash cache, not read
	Bytes    atomic.Int64 // bytes read, of the files hashed (Hashed)
	Read     atomic.Int64 // bytes read so far, of files still being read too: the progress inside a large file
	WalkDone atomic.Bool  // the walk (or the export) has been read to its end: Found is the total
	Packed   atomic.Int64 // files opened to be packaged into the Resource Dump

	// With CountAhead set before the build, a walk that only counts runs
	// ahead of the one that hashes and gives the totals early (restic's
	// scanner), at the cost of reading the directories twice.
	CountAhead bool
	Total      atomic.Int64
	TotalBytes atomic.Int64
	Counted    atomic.Bool

	set atomic.Value // the set of a site being built (NextSet)

	// Entered, if set before the build, is called with each step the
	// build enters: a log of the steps misses none, however short.
	Entered func(Phase)
}

// Phase is a step of a build, in order; steps without work are skipped.
type Phase int32

const (
	PhaseStarting  Phase = iota // checking the configuration, opening the source
	PhasePrevious               // reading the previous build (Config.Changes.Previous)
	PhaseScanning               // walking the source and hashing its files
	PhaseReading                // reading the records of an export (and hashing their local files)
	PhasePackaging              // writing the packages of the Resource Dump
	PhaseWriting                // writing the lists and the other documents
	PhaseChecking               // validating what was written, before it is published
)

// NextSet sets the counts but Cached back to zero for the set name.
func (s *Stats) NextSet(name string) {
	for _, n := range []*atomic.Int64{&s.Found, &s.Hashed, &s.Bytes, &s.Read, &s.Packed, &s.Total, &s.TotalBytes} {
		n.Store(0)
	}
	s.WalkDone.Store(false)
	s.Counted.Store(false)
	s.set.Store(name)
}

// Set is the set of a site being built, "" for a build without sets.
func (s *Stats) Set() string {
	name, _ := s.set.Load().(string)
	return name
}

func (s *Stats) Enter(p Phase) {
	s.Phase.Store(int32(p))
	if s.Entered != nil {
		s.Entered(p)
	}
}

// Problems collects the problems of a build, from several goroutines.
type Problems struct {
	mu       sync.Mutex
	list     []Problem
	FailFast func(error) // cancels the build on the first problem, if set
}

func (p *Problems) Add(pr Problem) {
	p.mu.Lock()
	p.list = append(p.list, pr)
	p.mu.Unlock()
	if p.FailFast != nil {
		p.FailFast(pr)
	}
}

func (p *Problems) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.list)
}

// Sorted returns the problems by path, then line.
func (p *Problems) Sorted() []Problem {
	p.mu.Lock()
	defer p.mu.Unlock()
	slices.SortStableFunc(p.list, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return p.list
}

// ChangeReport says what a build found changed since the previous one.
type ChangeReport struct {
	Since                     time.Time // the previous build's snapshot time
	Created, Updated, Deleted int
	Lists                     int // Change Lists published: 1 for the open changelist.xml, else those its index lists (0: none)
	Dropped                   int // earlier Change Lists no longer published (Changes.Keep, gaps)
	Reread                    int // files read again for a digest the previous build used
	Packages                  int // Change Dump packages published
	Archived                  int // Change Lists the Change List Archive lists (0: none published)
}

// Export says what a build from a record export found.
type Export struct {
	Name       string         // the export, as messages name it
	Records    int            // records read, bad ones included
	Listed     int            // in the Resource List
	Bytes      int64          // their known lengths, summed; math.MaxInt64 if the sum is more
	Tombstones int            // deleted records that were published
	Withheld   map[string]int // records not published, by status
	Bad        int            // bad records (skipped, with SkipBadRecords)
	Unpackaged int            // records left out of every list: their files could not be packaged (Resource Dump)
	Changed    int            // of Unpackaged, those whose file changed after it was read
	ChangeList bool           // a Change List was written
	Changes    int            // its entries
	NoChanges  bool           // no Change List: nothing happened in the window
	From       time.Time      // start of its window
	Warnings   []string       // what a publisher should know: other hosts, no Change List…
}
