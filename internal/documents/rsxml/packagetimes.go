package rsxml

import (
	"fmt"
	"strings"
	"time"
)

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
	if msg := within(dump, pkg, "the package's"); msg != "" {
		return msg
	}
	if manifest == nil {
		return ""
	}
	p := [4]string{pkg.At, pkg.Completed, pkg.From, pkg.Until}
	m := [4]string{manifest.At, manifest.Completed, manifest.From, manifest.Until}
	for i, attr := range [4]string{"at", "completed", "from", "until"} {
		pt, ok1 := attrTime(p[i])
		mt, ok2 := attrTime(m[i])
		if ok1 && (!ok2 || !pt.Equal(mt)) {
			return fmt.Sprintf("its manifest gives %s, but the package's entry gives %s=%s", describeAttr(attr, m[i]), attr, p[i])
		}
	}
	return within(dump, manifest, "its manifest's")
}

// within checks the times of md against the bounds of the dump's.
func within(dump, md *MD, whose string) string {
	for _, c := range [4][3]string{
		{"at", md.At, "at"}, {"completed", md.Completed, "at"},
		{"from", md.From, "from"}, {"until", md.Until, "from"},
	} {
		lo, hi := [2]string{"at", dump.At}, [2]string{"completed", dump.Completed}
		if c[2] == "from" {
			lo, hi = [2]string{"from", dump.From}, [2]string{"until", dump.Until}
		}
		t, ok := attrTime(c[1])
		if !ok {
			continue
		}
		if b, ok := attrTime(lo[1]); ok && t.Before(b) {
			return fmt.Sprintf("%s %s=%s is before the dump's %s=%s", whose, c[0], c[1], lo[0], lo[1])
		}
		if b, ok := attrTime(hi[1]); ok && t.After(b) {
			return fmt.Sprintf("%s %s=%s is after the dump's %s=%s", whose, c[0], c[1], hi[0], hi[1])
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
