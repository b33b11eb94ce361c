package rsxml

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestFormatTimeByHand holds the hand-written formatting of whole seconds
// to time.Format, over years 0 to 9999.
func TestFormatTimeByHand(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const first, last = -62167219200, 253402300799 // 0000-01-01, 9999-12-31T23:59:59
	for range 20000 {
		tm := time.Unix(first+rng.Int64N(last-first+1), 0)
		if got, want := FormatTime(tm), tm.UTC().Format("2006-01-02T15:04:05Z"); got != want {
			t.Fatalf("FormatTime(%d) = %s, want %s", tm.Unix(), got, want)
		}
	}
}

// FuzzParseTime holds the parser to time.Parse: what it takes in the full
// form (with seconds) is RFC 3339, and the same instant.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2013-01-03T09:00:00Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
		"2013-13-03T09:00:00Z", "2013-01-03T24:00:00Z", "2013-01-03T09:60:00Z", "2013-01-03T09:00:60Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2013-01-03t09:00:00Z", "2013-01-03T09:00:00z",
		"2013-01-03T09:00:0AZ", "2013-01-0-T09:00:00Z", "+013-01-03T09:00:00Z", "2013-00-03T09:00:00Z",
		"2013-01-00T09:00:00Z", "2013-04-31T09:00:00Z", "2013-01-03T09:00:00+00:00", "2013-01-03T09:00:00.123-05:30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, p, err := ParseTimeForm(s)
		if err != nil || p != Second {
			return
		}
		if want, err := time.Parse(time.RFC3339Nano, s); err != nil || !got.Equal(want) {
			t.Fatalf("%q: ParseTimeForm %v, time.Parse %v, %v", s, got, want, err)
		}
	})
}
