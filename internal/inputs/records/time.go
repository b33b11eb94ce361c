package records

import (
	"fmt"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// ParseTime reads a time of a record. The full form is a W3C Datetime with
// seconds and a time zone: 2024-05-01T10:11:12Z, 2024-05-01T12:11:12+02:00,
// with optional fractional seconds. Because databases export times that
// way, a space may stand for the T and the offset may be written +02, +0200
// or +02:00 (PostgreSQL writes "2024-05-01 12:11:12.5+02"). The reduced
// W3C forms 2024, 2024-05, 2024-05-01 and 2024-05-01T10:11Z are read too;
// a date alone is the start of that day in UTC.
//
// A time of day without a time zone is refused: it names no instant. The
// result is in UTC.
func ParseTime[S ~string | ~[]byte](b S) (time.Time, error) {
	if t, ok := parseFull(b); ok {
		return t, nil
	}
	s := string(b)
	if len(s) >= 16 && (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && !strings.ContainsAny(s[16:], "Zz+-") {
		return time.Time{}, fmt.Errorf("%q has no time zone (add Z for UTC, or an offset such as +02:00)", s)
	}
	t, err := rsxml.ParseTime(s)
	if err != nil && isLeapSecond(s) {
		return time.Time{}, fmt.Errorf("%q is a leap second, which Go's time and most readers of W3C Datetimes cannot hold: give the second before it (:59)", s)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date and time such as 2024-05-01T10:11:12Z", s)
	}
	return t, nil
}

// isLeapSecond reports whether s is a time of the 61st second of a
// minute, as UTC adds one to some minutes (2016-12-31T23:59:60Z).
func isLeapSecond(s string) bool {
	if len(s) < 20 || s[13] != ':' || s[16] != ':' || s[17:19] != "60" {
		return false
	}
	_, ok := parseFull(s[:17] + "59" + s[19:])
	return ok
}

// parseFull reads YYYY-MM-DD[T ]hh:mm:ss[.f+]ZONE, where ZONE is Z, ±hh,
// ±hhmm or ±hh:mm (t and z in either case), without allocating: it writes
// the value in the W3C form into a buffer that rsxml reads.
func parseFull[S ~string | ~[]byte](s S) (time.Time, bool) {
	if len(s) < 20 || s[10] != 'T' && s[10] != 't' && s[10] != ' ' {
		return time.Time{}, false
	}
	end := 19
	if s[end] == '.' {
		for end++; end < len(s) && s[end] >= '0' && s[end] <= '9'; end++ {
		}
	}
	var buf [40]byte
	w := buf[:0]
	for i := range end {
		w = append(w, s[i])
	}
	w[10] = 'T'
	switch z := s[end:]; len(z) {
	case 1:
		w = append(w, z[0]&^0x20) // z or Z: Z
	case 3: // ±hh
		w = append(w, z[0], z[1], z[2], ':', '0', '0')
	case 5: // ±hhmm
		w = append(w, z[0], z[1], z[2], ':', z[3], z[4])
	case 6: // ±hh:mm
		w = append(w, z[0], z[1], z[2], z[3], z[4], z[5])
	default:
		return time.Time{}, false
	}
	t, form, err := rsxml.ParseTimeForm(w)
	return t, err == nil && form == rsxml.Second
}

func digits[S ~string | ~[]byte](s S) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
