package detect

import (
	"bytes"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// A verdict is what comparing a resource with its previous entry says.
type verdict uint8

const (
	unchanged verdict = iota
	changed
	unknown // no digest in common: the file must be read for the previous build's
)

// compare compares a scanned resource with its previous entry. Digests are
// compared for every algorithm both have, and lengths always. With no
// algorithm in common, it returns unknown and the previous build's
// algorithms rsgen can compute, if it has any; else equal lengths count as
// unchanged.
func compare(r *spill.Resource, p *previous.Resource, set hashing.Set) (verdict, []hashing.Algorithm) {
	if p.Length >= 0 && r.Length >= 0 && p.Length != r.Length {
		return changed, nil
	}
	shared := false
	var extra []hashing.Algorithm
	for _, t := range p.Hash {
		a, err := hashing.ParseAlgorithm(t.Alg)
		if err != nil {
			continue // an algorithm rsgen does not know cannot be compared
		}
		if !set.Has(a) {
			extra = append(extra, a)
			continue
		}
		shared = true
		if d, _ := hashing.Find(r.Hash, a); !bytes.Equal(d, t.Digest) {
			return changed, nil
		}
	}
	switch {
	case shared:
		return unchanged, nil
	case len(extra) > 0:
		return unknown, extra
	}
	return unchanged, nil
}

// keepLastmod gives an unchanged resource the lastmod it was published
// with, so that Destinations comparing lastmod do not fetch it again after
// a checkout reset its mtime.
func keepLastmod(r *spill.Resource, p *previous.Resource) {
	if !p.Lastmod.IsZero() {
		r.Modified = p.Lastmod
	}
}

// changeTime is the datetime of a change to a file last modified at mod,
// found between the previous snapshot and this one: mod if it lies in
// between, else this snapshot's time, the latest the change can have
// happened. A deletion leaves no mtime and always gets the snapshot time.
// Datetimes are whole seconds: a change within the second of the previous
// snapshot, after it, gets the next second, not a datetime the previous
// build's Change List already gave (a Destination resumes after it).
func (j *Join) changeTime(mod time.Time) time.Time {
	if !mod.After(j.Since) || mod.After(j.At) {
		return j.At
	}
	if t := mod.Truncate(time.Second); t.After(j.Since) {
		return t
	}
	if t := j.Since.Truncate(time.Second).Add(time.Second); t.Before(j.At) {
		return t
	}
	return j.At
}

// newChange makes the change of r, of kind, with p its previous entry (nil
// if it was created). An updated resource whose mtime is not after the
// lastmod it was published with (an older copy put back, a checkout that
// kept times) gets the datetime of the change as lastmod, in its Resource
// List entry too, so that Destinations comparing lastmod see it as newer.
func (j *Join) newChange(r *spill.Resource, p *previous.Resource, kind string) spill.Change {
	dt := j.changeTime(r.Modified)
	if kind == rsxml.ChangeUpdated && p != nil && !p.Lastmod.IsZero() && !r.Modified.Truncate(time.Second).After(p.Lastmod) {
		r.Modified = dt
	}
	return spill.Change{Resource: r.Clone(), Change: kind, Datetime: dt}
}
