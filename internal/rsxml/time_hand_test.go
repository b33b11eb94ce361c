package rsxml

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendTimeByHand holds the hand-written formatting of whole seconds
// to time.Format, over years 0 to 9999.
func TestAppendTimeByHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const first, last = -62167219200, 253402300799 // 0000-01-01, 9999-12-31T23:59:59
	for range 20000 {
		tm := time.Unix(first+rng.Int64N(last-first+1), 0)
		if got, want := string(AppendTime(nil, tm)), tm.UTC().Format("2006-01-02T15:04:05Z"); got != want {
			t.Fatalf("AppendTime(%d) = %s, want %s", tm.Unix(), got, want)
		}
	}
}

// FuzzParseTimeByHand holds the hand-written parser of the form rsgen
// writes to the regular expression: where either takes a string, both
// take it, as the same instant.
func FuzzParseTimeByHand(f *testing.F) {
	for _, s := range []string{"2013-01-03T09:00:00Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
		"2013-13-03T09:00:00Z", "2013-01-03T24:00:00Z", "2013-01-03T09:60:00Z", "2013-01-03T09:00:60Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2013-01-03t09:00:00Z", "2013-01-03T09:00:00z",
		"2013-01-03T09:00:0AZ", "2013-01-0-T09:00:00Z", "+013-01-03T09:00:00Z", "2013-00-03T09:00:00Z",
		"2013-01-00T09:00:00Z", "2013-04-31T09:00:00Z", "2013-01-03T09:00:00+00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hand, ok := parseFullUTC(s)
		re, err := parseW3C(s)
		if ok && (err != nil || !hand.Equal(re)) {
			t.Fatalf("%q: by hand %v, by the expression %v, %v", s, hand, re, err)
		}
		if !ok && err == nil && len(s) == 20 && s[19] == 'Z' {
			t.Fatalf("%q: refused by hand, %v by the expression", s, re)
		}
	})
}
