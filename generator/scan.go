package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// A Filter decides which files of a tree are published.
type Filter struct {
	Include []string // doublestar patterns; if any, a file must match one
	Exclude []string // doublestar patterns; a match is never published
	Hidden  bool     // publish names starting with "." too
}

// Validate reports the first malformed pattern.
func (f *Filter) Validate() error {
	for _, p := range f.Include {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("--include %q is not a valid pattern", p)
		}
	}
	for _, p := range f.Exclude {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("--exclude %q is not a valid pattern", p)
		}
	}
	return nil
}

func matchAny(patterns []string, rel string) bool {
	for _, p := range patterns {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// pruneDir reports whether a directory rel is excluded with all it holds.
func (f *Filter) pruneDir(name, rel string) bool {
	if !f.Hidden && strings.HasPrefix(name, ".") {
		return true
	}
	return matchAny(f.Exclude, rel) || matchAny(f.Exclude, rel+"/")
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

// A Problem is a file that was not published, and why.
type Problem struct {
	Path string // relative to the source, or the record export
	Line int    // line of a bad record in the export; 0 for a file
	Dir  bool   // Path is a directory that could not be read (wholly or in part): its files are unknown
	Err  error
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return printable(p.Path) + ":" + strconv.Itoa(p.Line) + ": " + p.Err.Error()
	}
	return printable(p.Path) + ": " + p.Err.Error()
}

// printable quotes a name that a terminal or a log would not show as it
// is: one with a line break, an escape sequence or another control or
// bidirectional character could forge lines of a CI log or drive the
// terminal.
func printable(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}) {
		return strconv.Quote(name)
	}
	return name
}

// scanFile is a regular file found by the walker.
type scanFile struct {
	rel  string      // slash-separated path under the root: the published name
	path string      // where to open it (a symbolic link resolved, if followed)
	info fs.FileInfo // the stat of a symbolic link's target, if it was followed; else nil
}

// walker lists the files of a tree.
type walker struct {
	root    string // absolute, symbolic links resolved
	filter  *Filter
	follow  bool
	skip    func(real string) bool // rsgen's own output, by its real path under the root
	problem func(Problem)
	notice  func(string)
	emit    func(scanFile) error
}

// walk lists root's files in lexical order of their names.
func (w *walker) walk(ctx context.Context) error {
	return w.dir(ctx, w.root, "", "", []string{w.root})
}

// dir walks the directory at path, published as rel; real is where it is
// under the root once symbolic links are resolved (rel, unless reached
// through a link), which is what decides whether it is rsgen's own output.
// ancestors holds the resolved paths of the directories above it, to stop
// symbolic link loops.
func (w *walker) dir(ctx context.Context, path, rel, real string, ancestors []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil && len(entries) == 0 {
		w.problem(Problem{Path: displayRel(rel), Dir: true, Err: fmt.Errorf("reading directory: %w", unwrapPath(err))})
		return nil
	} else if err != nil {
		w.problem(Problem{Path: displayRel(rel), Dir: true, Err: fmt.Errorf("reading directory (listed in part): %w", unwrapPath(err))})
	}
	for _, de := range entries {
		name := de.Name()
		crel, creal := name, name
		if rel != "" {
			crel = rel + "/" + name
		}
		if real != "" {
			creal = real + "/" + name
		}
		if w.skip(creal) {
			continue
		}
		cpath := filepath.Join(path, name)
		mode := de.Type()
		target := cpath
		var info fs.FileInfo
		if mode&fs.ModeSymlink != 0 {
			if !w.follow {
				continue
			}
			resolved, rinfo, ok := w.resolveLink(cpath, crel)
			if !ok {
				continue
			}
			target, mode, info = resolved, rinfo.Mode().Type(), rinfo
			creal = w.realRel(resolved)
			if w.skip(creal) {
				continue
			}
		}
		switch {
		case mode.IsDir():
			if w.filter.pruneDir(name, crel) {
				continue
			}
			if !w.validName(name, crel) {
				continue
			}
			if slices.Contains(ancestors, target) {
				w.notice(fmt.Sprintf("%s: symbolic link loop, not followed", printable(crel)))
				continue
			}
			if err := w.dir(ctx, target, crel, creal, append(ancestors, target)); err != nil {
				return err
			}
		case mode.IsRegular():
			if !w.filter.Publishes(name, crel) || !w.validName(name, crel) {
				continue
			}
			if err := w.emit(scanFile{rel: crel, path: target, info: info}); err != nil {
				return err
			}
		default:
			// FIFOs, sockets and devices have no bytes to publish; they are
			// skipped by type, never opened.
		}
	}
	return nil
}

// validName reports whether name, which would be published as rel, has a
// URL; if not, it is a problem. Only names that would be published are
// checked: a hidden, excluded or special file is lost to no one.
func (w *walker) validName(name, rel string) bool {
	if utf8.ValidString(name) {
		return true
	}
	w.problem(Problem{Path: fmt.Sprintf("%q", rel), Err: errors.New("the name is not valid UTF-8 and has no URL; rename the file")})
	return false
}

// resolveLink follows the symbolic link at path and returns its target if
// the target stays inside the root.
func (w *walker) resolveLink(path, rel string) (string, fs.FileInfo, bool) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		w.notice(fmt.Sprintf("%s: symbolic link not followed: %v", printable(rel), unwrapPath(err)))
		return "", nil, false
	}
	if !within(w.root, resolved) {
		w.notice(fmt.Sprintf("%s: symbolic link leads outside the source, not followed", printable(rel)))
		return "", nil, false
	}
	info, err := os.Stat(resolved)
	if err != nil {
		w.notice(fmt.Sprintf("%s: symbolic link not followed: %v", printable(rel), unwrapPath(err)))
		return "", nil, false
	}
	return resolved, info, true
}

// realRel returns resolved, a path inside the root, relative to it and
// slash-separated ("" for the root itself).
func (w *walker) realRel(resolved string) string {
	rel, _ := filepath.Rel(w.root, resolved)
	if rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// within reports whether path is root or below it. Both are clean and absolute.
func within(root, path string) bool {
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}

func displayRel(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// unwrapPath drops the path an *fs.PathError carries: callers name the
// file once, by its published name.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
