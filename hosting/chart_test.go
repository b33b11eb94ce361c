package hosting

import (
	"strings"
	"testing"
	"time"
)

// The chart has a bar per day over two weeks at least, per week or per
// month over longer spans, never more than chartMaxBars; days without
// changes keep their place; the SVG has no script and no external asset.
func TestChangeChart(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name  string
		days  []ChangeCounts
		bars  int
		unit  string
		first string // the label of the first bar
	}{
		{"one build", []ChangeCounts{{Day: day("2024-06-02"), Created: 3}}, 14, "day", "2024-05-20"},
		{"a month of builds", []ChangeCounts{{Day: day("2024-05-01"), Updated: 1}, {Day: day("2024-05-31"), Deleted: 2}}, 31, "day", "2024-05-01"},
		{"a year", []ChangeCounts{{Day: day("2024-01-03"), Created: 1}, {Day: day("2024-12-30"), Created: 1}}, 53, "week", "week of 2024-01-01"},
		{"two years", []ChangeCounts{{Day: day("2023-01-04"), Created: 1}, {Day: day("2024-12-30"), Created: 1}}, 24, "month", "2023-01"},
		{"twenty years", []ChangeCounts{{Day: day("2004-01-04"), Created: 1}, {Day: day("2024-12-30"), Created: 1}}, chartMaxBars, "month", "2017-07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bars, unit := bucket(tt.days, tt.days[len(tt.days)-1].Day)
			if unit.name != tt.unit || len(bars) != tt.bars {
				t.Errorf("%d bars per %s, want %d per %s", len(bars), unit.name, tt.bars, tt.unit)
			}
			if unit.label(bars[0].Day) != tt.first {
				t.Errorf("first bar %s, want %s", unit.label(bars[0].Day), tt.first)
			}
			sum := 0
			for _, b := range bars {
				sum += b.Created + b.Updated + b.Deleted
			}
			total := 0
			for _, d := range tt.days {
				if !d.Day.Before(bars[0].Day) { // the oldest may be left out of chartMaxBars months
					total += d.Created + d.Updated + d.Deleted
				}
			}
			if sum != total {
				t.Errorf("the bars hold %d changes, the days %d", sum, total)
			}
			svg := string(ChangeChart(tt.days, tt.days[len(tt.days)-1].Day))
			if !strings.HasPrefix(svg, "<svg ") || strings.Contains(svg, "<script") || strings.Contains(svg, "href") {
				t.Errorf("not a self-contained SVG: %.200s", svg)
			}
		})
	}
	if ChangeChart(nil, time.Now()) != "" {
		t.Error("a chart without changes")
	}
	// The quiet days since the last change are drawn, up to the snapshot.
	bars, unit := bucket([]ChangeCounts{{Day: day("2024-06-02"), Created: 1}}, day("2024-06-20"))
	if unit.name != "day" || len(bars) != 19 || unit.label(bars[len(bars)-1].Day) != "2024-06-20" || bars[0].Created != 1 {
		t.Errorf("%d bars per %s, to %s; want 19 per day from the change to the snapshot", len(bars), unit.name, unit.label(bars[len(bars)-1].Day))
	}
}
