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

// CheckName reports whether name can be the path of a bitstream in a
// package: relative, slash-separated, without empty, "." or ".." segments,
// valid UTF-8 of at most 65,535 bytes, and without the characters that
// either XML or the schema of the path attribute (pattern "/.*[^/]", where
// "." matches no line break) cannot carry, nor a backslash, which ZIP
// forbids in names (APPNOTE.TXT 4.4.17) and which some extractors take for
// a separator. It does not reserve ManifestName: Run moves a bitstream of
// that name aside.
func CheckName(name string) error {
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

// entryNames returns the name each bitstream gets in its package: its own,
// except for a top-level name that is ManifestName in any letter case
// (which would hide or overwrite the manifest when unpacked on a
// case-insensitive file system): that one is prefixed with underscores
// until it matches no other path, nor the directory of one. The result
// depends only on the names, so every run names them the same.
func entryNames(names []string) []string {
	out := names
	var taken []string // sorted, built on first need
	for i, n := range names {
		if !strings.EqualFold(n, ManifestName) {
			continue
		}
		if taken == nil {
			taken = slices.Clone(names)
			slices.Sort(taken)
			out = slices.Clone(names)
		}
		c := n
		for {
			c = "_" + c
			if !nameTaken(taken, c) {
				break
			}
		}
		taken = insertSorted(taken, c)
		out[i] = c
	}
	return out
}

// nameTaken reports whether c, or a directory c/, is in sorted.
func nameTaken(sorted []string, c string) bool {
	if _, found := slices.BinarySearch(sorted, c); found {
		return true
	}
	i, _ := slices.BinarySearch(sorted, c+"/")
	return i < len(sorted) && strings.HasPrefix(sorted[i], c+"/")
}

func insertSorted(sorted []string, s string) []string {
	i, _ := slices.BinarySearch(sorted, s)
	return slices.Insert(sorted, i, s)
}
