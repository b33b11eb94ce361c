package hosting

import (
	"fmt"
	htmltemplate "html/template"
	"strings"
	"time"
)

// ChangeCounts are the changes that the Change Lists of a site list on
// one day (UTC), by kind.
type ChangeCounts struct {
	Day                       time.Time // midnight UTC
	Created, Updated, Deleted int
}

// Add adds the counts of d to c (not its day).
func (c *ChangeCounts) Add(d ChangeCounts) {
	c.Created, c.Updated, c.Deleted = c.Created+d.Created, c.Updated+d.Updated, c.Deleted+d.Deleted
}

// Chart dimensions, in the units of the SVG's viewBox; the page scales it
// to its width.
const (
	chartW, chartH = 640, 200
	chartLeft      = 44 // room for the scale
	chartTop       = 28 // room for the legend
	chartBottom    = 22 // room for the dates
	chartMaxBars   = 90
	chartMinDays   = 14 // the shortest span drawn, so that one build is one narrow bar
)

// ChangeChart draws days (in order, each once) up to the snapshot at as an
// inline SVG of stacked bars per day, week or month (bucket), with a
// <title> on each bar; "" without days. The days after the last change
// are drawn empty: how long the collection has not changed tells as much.
func ChangeChart(days []ChangeCounts, at time.Time) htmltemplate.HTML {
	if len(days) == 0 {
		return ""
	}
	bars, unit := bucket(days, at.UTC().Truncate(24*time.Hour))
	peak := 1
	var total ChangeCounts
	for _, b := range bars {
		peak = max(peak, b.Created+b.Updated+b.Deleted)
		total.Add(b)
	}
	plotW, plotH := float64(chartW-chartLeft), float64(chartH-chartTop-chartBottom)
	step := plotW / float64(len(bars))
	gap := min(step*0.2, 2)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="Changes per %s: %d created, %d updated, %d deleted" xmlns="http://www.w3.org/2000/svg">`,
		chartW, chartH, unit.name, total.Created, total.Updated, total.Deleted)
	x := float64(chartLeft)
	for i, n := range total.counts() {
		lx := float64(chartLeft + i*170)
		fmt.Fprintf(&sb, `<rect x="%.0f" y="5" width="12" height="12" fill="%s"/><text x="%.0f" y="17" font-size="15">%s %d</text>`, lx, kinds[i].color, lx+17, kinds[i].name, n)
	}
	base := float64(chartH - chartBottom)
	fmt.Fprintf(&sb, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="#999"/>`, chartLeft, base, chartW, base)
	fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="14" text-anchor="end">%d</text>`, chartLeft-4, chartTop+8, peak)
	fmt.Fprintf(&sb, `<text x="%d" y="%.0f" font-size="14" text-anchor="end">0</text>`, chartLeft-4, base)
	for _, b := range bars {
		fmt.Fprintf(&sb, `<g><title>%s: %d created, %d updated, %d deleted</title>`, unit.label(b.Day), b.Created, b.Updated, b.Deleted)
		y := base
		for i, n := range b.counts() {
			if n == 0 {
				continue
			}
			h := plotH * float64(n) / float64(peak)
			y -= h
			fmt.Fprintf(&sb, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x+gap/2, y, step-gap, h, kinds[i].color)
		}
		sb.WriteString(`</g>`)
		x += step
	}
	fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="14">%s</text>`, chartLeft, chartH-4, unit.label(bars[0].Day))
	if len(bars) > 1 {
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="14" text-anchor="end">%s</text>`, chartW, chartH-4, unit.label(bars[len(bars)-1].Day))
	}
	sb.WriteString(`</svg>`)
	return htmltemplate.HTML(sb.String()) // only numbers and dates are written into it
}

// kinds are the kinds of change, in the order of counts, as the chart draws them.
var kinds = [3]struct{ name, color string }{{"created", "#2f855a"}, {"updated", "#2b6cb0"}, {"deleted", "#c53030"}}

func (c ChangeCounts) counts() [3]int { return [3]int{c.Created, c.Updated, c.Deleted} }

// bucket sums days into bars of one day, one week (from Monday) or one
// month, the shortest that needs at most chartMaxBars bars from the first
// day (or chartMinDays before the last) to the last, or through if later;
// a bar without changes is kept, so that the gaps show.
func bucket(days []ChangeCounts, through time.Time) ([]ChangeCounts, barUnit) {
	first, last := days[0].Day, days[len(days)-1].Day
	if through.After(last) {
		last = through
	}
	if early := last.AddDate(0, 0, 1-chartMinDays); early.Before(first) {
		first = early // a bar or two do not fill the chart
	}
	for i, unit := range barUnits {
		var bars []ChangeCounts
		for t := unit.start(first); !t.After(last); t = unit.next(t) {
			bars = append(bars, ChangeCounts{Day: t})
		}
		if len(bars) > chartMaxBars && i < len(barUnits)-1 {
			continue
		}
		if len(bars) > chartMaxBars {
			bars = bars[len(bars)-chartMaxBars:]
		}
		for _, d := range days {
			for i := len(bars) - 1; i >= 0; i-- {
				if !d.Day.Before(bars[i].Day) {
					bars[i].Add(d)
					break
				}
			}
		}
		return bars, unit
	}
	panic("unreachable")
}

// A barUnit is how long a bar of the chart is: where the first bar that
// holds a day starts, where the next one starts, and its name for people.
type barUnit struct {
	name  string
	start func(time.Time) time.Time
	next  func(time.Time) time.Time
	label func(time.Time) string
}

var barUnits = []barUnit{
	{"day", func(t time.Time) time.Time { return t }, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) },
		func(t time.Time) string { return t.Format("2006-01-02") }},
	{"week", func(t time.Time) time.Time { return t.AddDate(0, 0, -(int(t.Weekday())+6)%7) }, // from Monday
		func(t time.Time) time.Time { return t.AddDate(0, 0, 7) },
		func(t time.Time) string { return "week of " + t.Format("2006-01-02") }},
	{"month", func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) },
		func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }, func(t time.Time) string { return t.Format("2006-01") }},
}
