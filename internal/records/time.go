package records

import (
	"fmt"
	"time"

	"github.com/rsgen/rsgen/internal/rsxml"
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
func ParseTime(s string) (time.Time, error) {
	if t, ok := parseFull(s); ok {
		return t, nil
	}
	if len(s) >= 16 && (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && !hasZone(s[16:]) {
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

// hasZone reports whether rest, what follows the minutes, holds a zone.
func hasZone(rest string) bool {
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case 'Z', 'z', '+', '-':
			return true
		}
	}
	return false
}

// parseFull reads YYYY-MM-DD[T ]hh:mm:ss[.f+]ZONE without allocating.
func parseFull[S ~string | ~[]byte](s S) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	if c := s[10]; c != 'T' && c != 't' && c != ' ' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, false
	}
	rest := s[19:]
	nsec := 0
	if rest[0] == '.' {
		i := 1
		scale := 100000000
		for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
			nsec += int(rest[i]-'0') * scale
			scale /= 10
			i++
		}
		if i == 1 {
			return time.Time{}, false
		}
		rest = rest[i:]
	}
	off, ok := zone(rest)
	if !ok {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > rsxml.DaysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(off) * time.Second), true
}

// zone reads Z, ±hh, ±hhmm or ±hh:mm and returns the offset in seconds.
func zone[S ~string | ~[]byte](s S) (int, bool) {
	if len(s) == 1 && (s[0] == 'Z' || s[0] == 'z') {
		return 0, true
	}
	if len(s) < 3 || s[0] != '+' && s[0] != '-' {
		return 0, false
	}
	h, ok := digits(s[1:3])
	m := 0
	switch rest := s[3:]; {
	case len(rest) == 0:
	case len(rest) == 2:
		m, ok = digits2(rest, ok)
	case len(rest) == 3 && rest[0] == ':':
		m, ok = digits2(rest[1:], ok)
	default:
		return 0, false
	}
	if !ok || h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

func digits2[S ~string | ~[]byte](s S, ok bool) (int, bool) {
	n, ok2 := digits(s)
	return n, ok && ok2
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
