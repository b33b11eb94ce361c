package tree

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// A Filter decides which files of a tree are published.
type Filter struct {
	Include []string `toml:"include"` // doublestar patterns; if any, a file must match one
	Exclude []string `toml:"exclude"` // doublestar patterns; a match is never published
	Hidden  bool     `toml:"hidden"`  // publish names starting with "." too
}

func matchAny(patterns []string, rel string) bool {
	for _, p := range patterns {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// PruneDir reports whether a directory rel is excluded with all it holds,
// or holds nothing an include pattern can match: sets that share a source
// and each include one part of it (include = ["articles/**"]) walk that
// part only, not the whole source each.
func (f *Filter) PruneDir(name, rel string) bool {
	if !f.Hidden && strings.HasPrefix(name, ".") {
		return true
	}
	if matchAny(f.Exclude, rel) || matchAny(f.Exclude, rel+"/") {
		return true
	}
	if len(f.Include) == 0 {
		return false
	}
	for _, p := range f.Include {
		if mayMatchUnder(p, rel) {
			return false
		}
	}
	return true
}

// under returns the directories, one inside the other from the root, that
// every include pattern names literally before a name of its own
// ("articles/2024/*.html": articles, 2024): nothing outside the last one
// can be published, so a walk may start there. None without includes.
func (f *Filter) under() []string {
	var dirs []string
	for i, p := range f.Include {
		segs := strings.Split(p, "/")
		segs = segs[:len(segs)-1] // the last names what is published, never a directory to start in
		n := 0
		for n < len(segs) && literal(segs[n]) && (i == 0 || n < len(dirs) && segs[n] == dirs[n]) {
			n++
		}
		dirs = segs[:n]
	}
	return dirs
}

// literal reports whether the segment seg of a pattern matches one name,
// itself.
func literal(seg string) bool {
	return seg != "" && seg != "." && seg != ".." && !strings.ContainsAny(seg, `*?[]{}\`)
}

// mayMatchUnder reports whether the pattern p may match a path under the
// directory rel: false only if a segment of rel cannot match the segment
// of p at its place, with no ** before it (a ** matches any number of
// segments), or if p has no segment left for a name under rel. A segment
// with braces may hold a / and stops the comparison: maybe.
func mayMatchUnder(p, rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		ps, rest, more := strings.Cut(p, "/")
		if ps == "**" || strings.ContainsAny(ps, "{}") {
			return true
		}
		if !more { // p ends at this depth: it names rel itself at most
			return false
		}
		if ok, err := doublestar.Match(ps, seg); err != nil || !ok {
			return err != nil
		}
		p = rest
	}
	return true
}

// Publishes reports whether the file rel (base name name) is published.
func (f *Filter) Publishes(name, rel string) bool {
	if !f.Hidden && strings.HasPrefix(name, ".") {
		return false
	}
	if matchAny(f.Exclude, rel) {
		return false
	}
	return len(f.Include) == 0 || matchAny(f.Include, rel)
}

// PublishesPath reports whether the file at rel, a slash-separated path
// met whole rather than by a walk (an archive's member, an object's key),
// is published: as the walk would, with no directory on its way pruned.
func (f *Filter) PublishesPath(rel string) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			dir := rel[:i]
			if f.PruneDir(dir[strings.LastIndexByte(dir, '/')+1:], dir) {
				return false
			}
		}
	}
	return f.Publishes(rel[strings.LastIndexByte(rel, '/')+1:], rel)
}

// withholds reports whether the path real, slash-separated under the
// root, is one the walk never reaches by its own name: hidden (a name on
// it starts with "." and Hidden is off) or excluded, itself or a
// directory on its way. A symbolic link followed there does not publish
// it under another name: a link is content anyone who commits to a tree
// may add, and what it leads to must be content too.
func (f *Filter) withholds(real string) bool {
	parts := strings.Split(real, "/")
	for i, name := range parts {
		rel := strings.Join(parts[:i+1], "/")
		if f.PruneDir(name, rel) || (i == len(parts)-1 && matchAny(f.Exclude, rel)) {
			return true
		}
	}
	return false
}
