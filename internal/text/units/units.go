// Package units parses and formats byte sizes ("50MB", "1GiB") and
// durations of days ("30d"), as the CLI reads and prints them.
package units

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

var multipliers = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// ParseSize reads a byte size: a number with an optional unit (B, kB, MB,
// GB, TB, or KiB, MiB, GiB, TiB), case-insensitive. Units are powers of
// 1024 either way, as in the Sitemaps protocol, whose "50MB" limit is
// 52,428,800 bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(unicode.IsDigit(r) || r == '.') })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a size (examples: 50MB, 1GiB, 2000000)", s)
	}
	m, ok := multipliers[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (use B, kB, MB, GB, KiB, MiB, GiB)", s, unit)
	}
	n := v * m
	if n < 1 || n > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return int64(n), nil
}

// FormatSize renders n bytes for people, in powers of 1024: "1.2 MiB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// maxDays is the longest duration in days that a time.Duration holds
// (about 292 years).
const maxDays = float64(math.MaxInt64/int64(24*time.Hour)) - 1

// ParseDuration reads a duration in Go's syntax ("36h") or in days ("30d").
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 || math.IsNaN(n) {
			return 0, fmt.Errorf("%q is not a duration (examples: 30d, 36h)", s)
		}
		if n > maxDays {
			return 0, fmt.Errorf("%q is too long: at most %dd", s, int64(maxDays))
		}
		return time.Duration(n * 24 * float64(time.Hour)), nil
	}
	v, err := time.ParseDuration(t)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a duration (examples: 30d, 36h)", s)
	}
	return v, nil
}

// FormatDuration renders d as ParseDuration reads it: in days when it is
// a whole number of them ("30d"), else in Go's syntax ("36h0m0s").
func FormatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d != 0 && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	return d.String()
}

// Count renders n of a thing, in the plural unless n is 1: "1 file", "2
// files", "0 files"; "1 entry", "2 entries". The plural is English's
// regular one: an s added, or ies for a y after a consonant.
func Count(n int, thing string) string {
	many := thing + "s"
	if k := len(thing) - 1; k > 0 && thing[k] == 'y' && !strings.ContainsRune("aeiou", rune(thing[k-1])) {
		many = thing[:k] + "ies"
	}
	return strconv.Itoa(n) + " " + Plural(n, thing, many)
}

// Plural returns one if n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// A Duration is a time.Duration read as ParseDuration reads it ("30d",
// "36h"): a value of a configuration file.
type Duration time.Duration

// UnmarshalText reads d as ParseDuration does.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	*d = Duration(v)
	return err
}

func (d Duration) String() string { return FormatDuration(time.Duration(d)) }

// A Size is a number of bytes read as ParseSize reads it ("50MiB"), or a
// whole number: a value of a configuration file.
type Size int64

// UnmarshalText reads s as ParseSize does; "" is 0, as if none were given.
func (s *Size) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = 0
		return nil
	}
	v, err := ParseSize(string(b))
	*s = Size(v)
	return err
}

// A List is a list of strings that a configuration file may give as one
// string: include = "**/*.html" is include = ["**/*.html"].
type List []string

// UnmarshalText reads one string as a list of it.
func (l *List) UnmarshalText(b []byte) error {
	*l = List{string(b)}
	return nil
}

// leapSecond matches the seconds of a time given as 60: a leap second.
var leapSecond = regexp.MustCompile(`T\d\d:\d\d:60`)

// TimeError says what is wrong with s, a time given in RFC 3339 (rsgen
// build's --at or key at), or is "" if it is one; leap reports a leap
// second, which Go's time cannot represent.
func TimeError(s string) (msg string, leap bool) {
	switch _, err := time.Parse(time.RFC3339Nano, s); {
	case err == nil:
		return "", false
	case leapSecond.MatchString(s):
		return strconv.Quote(s) + " is a leap second, which rsgen cannot represent", true
	}
	return strconv.Quote(s) + " is not an RFC 3339 time", false
}
