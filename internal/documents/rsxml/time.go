package rsxml

import (
	"fmt"
	"strings"
	"time"
)

// TimeWidth is the layout of FormatTime, and the longest datetime it
// writes: plans of documents measure with it so that they hold whatever
// the times.
const TimeWidth = "2006-01-02T15:04:05.999999999Z"

// FormatTime renders t as a full UTC W3C Datetime, the form rsgen always
// writes: seconds precision ("2013-01-03T09:00:00Z"), or with fractional
// seconds when t has them, without trailing zeros.
func FormatTime(t time.Time) string {
	var buf [len(TimeWidth)]byte // on the stack: one allocation, the string
	t = t.UTC()
	year, month, day := t.Date()
	if t.Nanosecond() != 0 || year < 0 || year > 9999 {
		return string(t.AppendFormat(buf[:0], TimeWidth))
	}
	// By hand: time.AppendFormat interprets its layout on every call, and
	// a list formats a time per entry (a third of writing one).
	hour, minute, sec := t.Clock()
	return string(append(buf[:0], byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), 'Z'))
}

// A Precision is the form of the W3C Datetime profile of ISO 8601
// (https://www.w3.org/TR/NOTE-datetime) a time was written in.
type Precision uint8

const (
	Year   Precision = iota + 1 // YYYY
	Month                       // YYYY-MM
	Day                         // YYYY-MM-DD
	Minute                      // YYYY-MM-DDThh:mmTZD
	Second                      // YYYY-MM-DDThh:mm:ss[.s]TZD, TZD Z or ±hh:mm
)

// ParseTime parses a W3C Datetime, in any of its forms. Reduced forms (a
// year, a month, a day) stand for the start of that period in UTC.
func ParseTime(s string) (time.Time, error) {
	t, _, err := ParseTimeForm(s)
	return t, err
}

// ParseTimeForm is ParseTime that also returns the form s is written in,
// for readers that take only some (the schema's xsd:dateTime is Second).
// With an error, the form is 0 if s has none, else s has a field (or the
// time zone offset) out of range. It is the one parser of datetimes: by
// hand, since a list holds one a resource (a regular expression cost a
// fifth of validating a large list); of bytes too, for readers that do
// not make a string of every field.
func ParseTimeForm[S ~string | ~[]byte](s S) (time.Time, Precision, error) {
	c := timeScanner[S]{s: s, ok: true}
	year, month, day, p := c.num(4), 1, 1, Year
	var hour, minute, sec, nsec, zh, zm int
	neg := false
	if c.is('-') {
		month, p = c.num(2), Month
		if c.is('-') {
			day, p = c.num(2), Day
			if c.is('T') {
				hour, p = c.num(2), Minute
				c.ok = c.ok && c.is(':')
				minute = c.num(2)
				if c.is(':') {
					sec, p = c.num(2), Second
					if c.is('.') {
						nsec = c.fraction()
					}
				}
				if !c.is('Z') {
					neg = c.is('-')
					c.ok = c.ok && (neg || c.is('+'))
					zh = c.num(2)
					c.ok = c.ok && c.is(':')
					zm = c.num(2)
				}
			}
		}
	}
	switch {
	case !c.ok || c.i != len(s):
		return time.Time{}, 0, fmt.Errorf("%q is not a W3C Datetime (YYYY-MM-DDThh:mm:ssZ)", string(s))
	case zh > 23 || zm > 59:
		return time.Time{}, p, fmt.Errorf("%q: the time zone offset is out of range", string(s))
	case year == 0:
		return time.Time{}, p, fmt.Errorf("%q: the official schemas' xsd:dateTime has no year 0000", string(s))
	case month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59:
		return time.Time{}, p, fmt.Errorf("%q: a field is out of range", string(s))
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if off := time.Duration(zh)*time.Hour + time.Duration(zm)*time.Minute; neg {
		t = t.Add(off)
	} else if off != 0 {
		t = t.Add(-off)
	}
	return t, p, nil
}

// timeScanner reads a datetime from its start; ok turns false at the
// first byte that is not what was asked for.
type timeScanner[S ~string | ~[]byte] struct {
	s  S
	i  int
	ok bool
}

func (c *timeScanner[S]) num(n int) int {
	if !c.ok || c.i+n > len(c.s) {
		c.ok = false
		return 0
	}
	v := 0
	for _, b := range []byte(c.s[c.i : c.i+n]) {
		if b-'0' > 9 {
			c.ok = false
		}
		v = v*10 + int(b-'0')
	}
	c.i += n
	return v
}

func (c *timeScanner[S]) is(b byte) bool {
	if c.ok && c.i < len(c.s) && c.s[c.i] == b {
		c.i++
		return true
	}
	return false
}

// fraction reads the digits of a fraction of a second, at least one, as
// nanoseconds: digits past the ninth are dropped.
func (c *timeScanner[S]) fraction() int {
	nsec, scale, start := 0, 100_000_000, c.i
	for c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		nsec += int(c.s[c.i]-'0') * scale
		scale /= 10
		c.i++
	}
	c.ok = c.ok && c.i > start
	return nsec
}

// daysIn returns the number of days of a month (1 to 12) in the proleptic
// Gregorian calendar.
func daysIn(year, month int) int {
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

// PackageTimes is the one rule on the times of a package of a dump, which
// the dumps rsgen writes follow, the reader of a previous build enforces
// and the validator checks. dump is the root <rs:md> of the Resource Dump
// or Change Dump, pkg the <rs:md> of the package's entry, manifest the root
// <rs:md> of the copy of its manifest (nil if it links to none).
//
// A package is part of its dump (sections 11.1 and 13.1, Appendix A): the
// snapshot of a Resource Dump starts at its at and ends at its completed,
// and each package's snapshot is taken within it, so the at and completed
// of a package lie between the dump's at and completed (the spec's example
// 17 has a package taken a minute after its dump's at); the packages of a
// Change Dump cover parts of its interval, so their from and until lie
// between its from and until. The manifest describes the package: it gives
// the times its entry gives (example 18), and lies within the dump too.
// Bounds a document does not give, and values that are not datetimes (a
// fault reported on its own), are not checked.
//
// It returns "" when the times agree, else what is wrong.
func PackageTimes(dump, pkg, manifest *MD) string {
	if msg := within(dump, pkg, "the package's"); msg != "" || manifest == nil {
		return msg
	}
	for _, a := range [...]struct{ name, pkg, manifest string }{
		{"at", pkg.At, manifest.At}, {"completed", pkg.Completed, manifest.Completed},
		{"from", pkg.From, manifest.From}, {"until", pkg.Until, manifest.Until},
	} {
		pt, ok1 := attrTime(a.pkg)
		mt, ok2 := attrTime(a.manifest)
		if ok1 && (!ok2 || !pt.Equal(mt)) {
			return fmt.Sprintf("its manifest gives %s, but the package's entry gives %s=%s", describeAttr(a.name, a.manifest), a.name, a.pkg)
		}
	}
	return within(dump, manifest, "its manifest's")
}

// within checks the times of md against the bounds of the dump's.
func within(dump, md *MD, whose string) string {
	for _, c := range [...]struct{ name, v, lo, loV, hi, hiV string }{
		{"at", md.At, "at", dump.At, "completed", dump.Completed},
		{"completed", md.Completed, "at", dump.At, "completed", dump.Completed},
		{"from", md.From, "from", dump.From, "until", dump.Until},
		{"until", md.Until, "from", dump.From, "until", dump.Until},
	} {
		t, ok := attrTime(c.v)
		if !ok {
			continue
		}
		if b, ok := attrTime(c.loV); ok && t.Before(b) {
			return fmt.Sprintf("%s %s=%s is before the dump's %s=%s", whose, c.name, c.v, c.lo, c.loV)
		}
		if b, ok := attrTime(c.hiV); ok && t.After(b) {
			return fmt.Sprintf("%s %s=%s is after the dump's %s=%s", whose, c.name, c.v, c.hi, c.hiV)
		}
	}
	return ""
}

// attrTime returns the time of the datetime attribute v; ok is false if v
// is absent or not a datetime.
func attrTime(v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	t, err := ParseTime(strings.TrimSpace(v))
	return t, err == nil
}

func describeAttr(attr, v string) string {
	if v == "" {
		return "no " + attr
	}
	return attr + "=" + v
}
