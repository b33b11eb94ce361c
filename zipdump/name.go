package zipdump

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ManifestName is the name of the Resource Dump Manifest inside every
// package (section 11.2: "manifest.xml", at the top level).
const ManifestName = "manifest.xml"

// ErrName reports a path that cannot be an entry of a package.
var ErrName = errors.New("cannot be packaged under this name")

// checkName reports whether name can be the path of a bitstream in a
// package: relative, slash-separated, without empty, "." or ".." segments,
// valid UTF-8 of at most 65,535 bytes, and without the characters that
// either XML or the schema of the path attribute (pattern "/.*[^/]", where
// "." matches no line break) cannot carry, nor a backslash, which ZIP
// forbids in names (APPNOTE.TXT 4.4.17) and which some extractors take for
// a separator. It does not reserve ManifestName: Run moves a bitstream of
// that name aside.
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

// chooseNames reads the names of the items and returns the name each
// bitstream gets in its package where it is not its own, and the number
// of items. A top-level name that is ManifestName in any letter case
// (which would hide or overwrite the manifest when unpacked on a
// case-insensitive file system) is prefixed with underscores until it
// matches no other path, nor the directory of one. The result depends
// only on the names, so every run names them the same.
//
// Only the names whose first segment is ManifestName behind underscores
// can be in the way of such a rename: they alone are kept, so that
// millions of names cost no memory.
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
