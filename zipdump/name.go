package zipdump

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

const ManifestName = "manifest.xml" // at the top level of a package (section 11.2)

// ErrName reports a path that cannot be an entry of a package.
var ErrName = errors.New("cannot be packaged under this name")

// checkName reports whether name can be the path of a bitstream in a
// package: relative, without empty, "." or ".." segments, UTF-8 of at most
// 65,535 bytes, without what XML or the path attribute's pattern
// "/.*[^/]" cannot carry, nor a backslash (APPNOTE.TXT 4.4.17).
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the path is empty", ErrName)
	case len(name) > 0xffff:
		return fmt.Errorf("%w: the path is longer than ZIP allows (65,535 bytes)", ErrName)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: the path is not valid UTF-8", ErrName)
	case name[0] == '/':
		return fmt.Errorf("%w: the path is absolute", ErrName)
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: the path has an empty, \".\" or \"..\" segment", ErrName)
		}
	}
	for _, r := range name {
		switch {
		case r == '\n' || r == '\r':
			return fmt.Errorf("%w: the name has a line break, which the path attribute of a manifest cannot hold (schema pattern \"/.*[^/]\"); rename the file", ErrName)
		case r < 0x20 && r != '\t':
			return fmt.Errorf("%w: the name has control character %U, which a manifest (XML) cannot hold; rename the file", ErrName, r)
		case r == 0xfffe || r == 0xffff:
			return fmt.Errorf("%w: the name has %U, which XML cannot hold; rename the file", ErrName, r)
		case r == '\\':
			return fmt.Errorf("%w: the name has a backslash, which ZIP forbids in entry names and some extractors read as a directory separator; rename the file", ErrName)
		}
	}
	return nil
}

// chooseNames returns the renames of the items' names, and their number.
// A top-level ManifestName in any letter case (it would hide the manifest
// on a case-insensitive file system) gets underscores before it until it
// matches no other path nor directory. Only the names that could be in
// the way (ManifestName behind underscores) are kept in memory.
func chooseNames(names func(yield func(string) bool) error) (map[string]string, int, error) {
	var taken []string   // first segments in the way, as files or directories
	var pending []string // names to rename, in order
	n := 0
	err := names(func(name string) bool {
		n++
		seg, _, _ := strings.Cut(name, "/")
		if !strings.EqualFold(strings.TrimLeft(seg, "_"), ManifestName) {
			return true
		}
		if seg == name && strings.EqualFold(name, ManifestName) {
			pending = append(pending, name)
		}
		taken = append(taken, seg)
		return true
	})
	if err != nil || len(pending) == 0 {
		return nil, n, err
	}
	slices.Sort(taken)
	renames := make(map[string]string, len(pending))
	for _, name := range pending {
		c := name
		for {
			c = "_" + c
			if _, found := slices.BinarySearch(taken, c); !found {
				break
			}
		}
		i, _ := slices.BinarySearch(taken, c)
		taken = slices.Insert(taken, i, c)
		renames[name] = c
	}
	return renames, n, nil
}
