package rsxml

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// FormatTime renders t as a full UTC W3C Datetime, the form rsgen always
// writes: seconds precision ("2013-01-03T09:00:00Z"), or with fractional
// seconds when t has them, without trailing zeros.
func FormatTime(t time.Time) string {
	var buf [len("2006-01-02T15:04:05.999999999Z")]byte // on the stack: one allocation, the string
	return string(AppendTime(buf[:0], t))
}

// AppendTime appends FormatTime(t) to b.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	if t.Nanosecond() == 0 {
		// By hand: time.AppendFormat interprets its layout on every call,
		// and a list formats a time per entry (a third of writing one).
		year, month, day := t.Date()
		hour, minute, sec := t.Clock()
		if year < 0 || year > 9999 {
			return t.AppendFormat(b, "2006-01-02T15:04:05Z")
		}
		return append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
			byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
			byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
			byte('0'+sec/10), byte('0'+sec%10), 'Z')
	}
	return t.AppendFormat(b, "2006-01-02T15:04:05.999999999Z")
}

// w3cDatetime is the W3C Datetime profile of ISO 8601
// (https://www.w3.org/TR/NOTE-datetime): YYYY, YYYY-MM, YYYY-MM-DD,
// YYYY-MM-DDThh:mmTZD, YYYY-MM-DDThh:mm:ssTZD or YYYY-MM-DDThh:mm:ss.sTZD.
var w3cDatetime = regexp.MustCompile(`^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2}))?)?)?$`)

// ParseTime parses a W3C Datetime. Reduced forms (a year, a month, a day)
// stand for the start of that period in UTC.
func ParseTime(s string) (time.Time, error) {
	if t, ok := parseFullUTC(s); ok {
		return t, nil
	}
	return parseW3C(s)
}

// parseW3C is ParseTime by the regular expression, for every form.
func parseW3C(s string) (time.Time, error) {
	m := w3cDatetime.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("%q is not a W3C Datetime (YYYY-MM-DDThh:mm:ssZ)", s)
	}
	num := func(i, def int) int {
		if m[i] == "" {
			return def
		}
		n, _ := strconv.Atoi(m[i])
		return n
	}
	year, month, day := num(1, 0), num(2, 1), num(3, 1)
	hour, minute, sec := num(4, 0), num(5, 0), num(6, 0)
	nsec := 0
	if f := m[7]; f != "" {
		if len(f) > 9 {
			f = f[:9]
		}
		n, _ := strconv.Atoi(f)
		for i := len(f); i < 9; i++ {
			n *= 10
		}
		nsec = n
	}
	loc := time.UTC
	if tz := m[8]; tz != "" && tz != "Z" {
		h, _ := strconv.Atoi(tz[1:3])
		mi, _ := strconv.Atoi(tz[4:6])
		if h > 23 || mi > 59 {
			return time.Time{}, fmt.Errorf("%q: time zone offset out of range", s)
		}
		off := h*3600 + mi*60
		if tz[0] == '-' {
			off = -off
		}
		loc = time.FixedZone(tz, off)
	}
	if month < 1 || month > 12 || day < 1 || day > DaysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, fmt.Errorf("%q: a field is out of range", s)
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc).UTC(), nil
}

// parseFullUTC parses the form rsgen writes, "2006-01-02T15:04:05Z",
// without the regular expression: a Resource List holds one a resource,
// and a previous build's lists are read on every rebuild. It reports false
// for any other form, and for fields out of range, which ParseTime then
// parses or reports.
func parseFullUTC(s string) (time.Time, bool) {
	if len(s) != len("2006-01-02T15:04:05Z") || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return time.Time{}, false
	}
	ok := true
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				ok = false
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if !ok || month < 1 || month > 12 || day < 1 || day > DaysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
}

// DaysIn returns the number of days of a month (1 to 12) in the proleptic
// Gregorian calendar.
func DaysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
