package report

import (
	"errors"
	"sync"
	"testing"
)

// Problems added from several goroutines come back by path, then line; a
// FailFast hears each as it is added.
func TestProblems(t *testing.T) {
	var p Problems
	var told []string
	var mu sync.Mutex
	p.FailFast = func(err error) { mu.Lock(); told = append(told, err.Error()); mu.Unlock() }
	var wg sync.WaitGroup
	for _, pr := range []Problem{{Path: "b", Err: errors.New("x")}, {Path: "export.csv", Line: 12, Err: errors.New("bad")},
		{Path: "a", Err: errors.New("y")}, {Path: "export.csv", Line: 3, Err: errors.New("bad")}} {
		wg.Add(1)
		go func() { defer wg.Done(); p.Add(pr) }()
	}
	wg.Wait()
	var got []string
	for _, pr := range p.Sorted() {
		got = append(got, pr.Error())
	}
	want := []string{"a: y", "b: x", "export.csv:3: bad", "export.csv:12: bad"}
	if len(got) != len(want) || len(told) != 4 {
		t.Fatalf("sorted %q, told %d", got, len(told))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sorted %q, want %q", got, want)
			break
		}
	}
}

// A name a terminal would not show as it is is quoted.
func TestProblemError(t *testing.T) {
	pr := Problem{Path: "a\nb.txt", Err: errors.New("unreadable")}
	if got := pr.Error(); got == "a\nb.txt: unreadable" {
		t.Errorf("Error %q shows the newline as it is", got)
	}
}
