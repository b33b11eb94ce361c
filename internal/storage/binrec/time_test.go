package binrec

import (
	"errors"
	"testing"
	"time"
)

func TestTime(t *testing.T) {
	t.Parallel()
	for _, tm := range []time.Time{
		{},
		time.Unix(0, 0),
		time.Date(2024, 6, 1, 12, 30, 45, 123456789, time.FixedZone("x", 3600)),
		time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		var b []byte
		b = AppendTime(b, tm)
		r := NewReader(b, errors.New("short"))
		got := r.Time()
		if r.Err() != nil || !got.Equal(tm) || got.IsZero() != tm.IsZero() || r.Len() != 0 {
			t.Errorf("%v read back as %v (%v, %d left)", tm, got, r.Err(), r.Len())
		}
		if !got.IsZero() && got.Location() != time.UTC {
			t.Errorf("%v read back in %v", tm, got.Location())
		}
	}
	// Cut short: the error, not a time.
	b := AppendTime(nil, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	r := NewReader(b[:2], errors.New("short"))
	r.Time()
	if r.Err() == nil {
		t.Error("a time cut short read without an error")
	}
}
