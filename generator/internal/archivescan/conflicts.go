package archivescan

import "strings"

// dirConflicts finds, in paths given in byte order, each file that an
// archive also holds as a directory, with members under it (x, and x/y):
// no tree holds both. Its memory is a chain of paths, each the one before
// it followed by more (a byte up to '/' first): those a later path may
// still lie under. A path is at most MaxLocLength bytes, so the chain is
// at most that many paths long, whatever the archive.
type dirConflicts struct {
	chain []heldPath
	found []dirConflict
}

type heldPath struct {
	path     string
	reported bool
}

// A dirConflict is a path in conflict: a file with members under it, or a
// member under a file (under names that file).
type dirConflict struct {
	path, under string
}

// add takes the next path, after those added before it.
func (d *dirConflicts) add(q string) {
	for len(d.chain) > 0 {
		p := d.chain[len(d.chain)-1].path
		if len(q) > len(p) && q[len(p)] <= '/' && strings.HasPrefix(q, p) {
			break // q, and later paths, may still lie under p
		}
		d.chain = d.chain[:len(d.chain)-1]
	}
	under := ""
	for i := range d.chain {
		h := &d.chain[i]
		if q[len(h.path)] != '/' {
			continue
		}
		if !h.reported {
			h.reported = true
			d.found = append(d.found, dirConflict{path: h.path})
		}
		if under == "" {
			under = h.path
		}
	}
	if under != "" {
		d.found = append(d.found, dirConflict{path: q, under: under})
	}
	d.chain = append(d.chain, heldPath{path: q, reported: under != ""})
}
