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
