package confined

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writing are the calls of packages os, syscall and x/sys/unix that
// write, rename or remove files by name: outside this package they would
// follow what a name leads to. Open calls count when their flags write.
var writing = map[string][]string{
	"os": {"Chmod", "Chown", "Chtimes", "Create", "CreateTemp", "Lchown", "Link", "Mkdir", "MkdirAll",
		"MkdirTemp", "OpenFile", "Remove", "RemoveAll", "Rename", "Symlink", "Truncate", "WriteFile", "OpenRoot"},
	"ioutil":  {"TempDir", "TempFile", "WriteFile"},
	"syscall": {"Chmod", "Creat", "Link", "Mkdir", "Open", "Rename", "Rmdir", "Symlink", "Truncate", "Unlink", "Utimes", "UtimesNano"},
	"unix": {"Chmod", "Creat", "Fchmodat", "Link", "Linkat", "Mkdir", "Mkdirat", "Open", "Openat", "Openat2", "Rename", "Renameat",
		"Renameat2", "Rmdir", "Symlink", "Symlinkat", "Truncate", "Unlink", "Unlinkat", "Utimes", "UtimesNano", "UtimesNanoAt"},
}

// opens are the calls above that only read when their flags say so; the
// index is that of the flags argument.
var opens = map[string]int{"os.OpenFile": 1, "syscall.Open": 1, "unix.Open": 1, "unix.Openat": 2}

// writeFlag matches the flags that write.
var writeFlag = regexp.MustCompile(`\bO_(WRONLY|RDWR|CREATE|CREAT|TRUNC|APPEND)\b`)

// allowed are the places outside this package that may call them, each
// with its reason.
var allowed = map[string]string{
	"internal/testenv/": "helpers that only tests import (generator/layers_test.go keeps it so): they build the trees tests run on",
	"os.OpenRoot generator/internal/treescan/files.go":  "the source tree read through an os.Root: nothing is written through it",
	"os.OpenRoot generator/internal/exports/source.go":  "the files of an export read through an os.Root",
	"os.OpenRoot hosting/serve.go":                      "rsgen serve reads the output through an os.Root",
	"os.OpenRoot internal/published/previous/source.go": "the previous output read through an os.Root",
}

// TestOnlyConfinedWrites: no product code writes, renames or removes a
// file by name but through this package, which follows no link where it
// writes (see the package documentation).
func TestOnlyConfinedWrites(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]string{} // every constant and variable of the module, by name: its value's text
	var files []*ast.File
	var names []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok {
				for _, spec := range g.Specs {
					if v, ok := spec.(*ast.ValueSpec); ok {
						for i, n := range v.Names {
							if i < len(v.Values) {
								consts[n.Name] = text(fset, v.Values[i])
							}
						}
					}
				}
			}
		}
		if !strings.HasPrefix(rel, "internal/storage/confined/") {
			files, names = append(files, f), append(names, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, f := range files {
		imports := map[string]string{} // name in the file: package path's last element
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				imports[im.Name.Name] = name
			} else {
				imports[name] = name
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			pkg := imports[x.Name]
			if !contains(writing[pkg], sel.Sel.Name) {
				return true
			}
			checked++
			fn := pkg + "." + sel.Sel.Name
			if at, ok := opens[fn]; ok && at < len(call.Args) && !writes(text(fset, call.Args[at]), consts) {
				return true
			}
			if reason(fn, names[i]) != "" {
				return true
			}
			t.Errorf("%s: %s: write through internal/storage/confined instead (it follows no link)", fset.Position(call.Pos()), fn)
			return true
		})
	}
	if checked < 10 {
		t.Errorf("only %d calls checked: the scan finds nothing", checked)
	}
}

// reason returns why the call fn in the file rel is allowed, or "".
func reason(fn, rel string) string {
	for k, why := range allowed {
		if prefix, ok := strings.CutPrefix(k, fn+" "); ok && strings.HasPrefix(rel, prefix) {
			return why
		}
		if !strings.Contains(k, " ") && strings.HasPrefix(rel, k) {
			return why
		}
	}
	return ""
}

// writes reports whether the flags expr (its text) may write: a name is
// looked up among the module's constants, and one not found counts as
// writing.
func writes(expr string, consts map[string]string) bool {
	for range 5 {
		if writeFlag.MatchString(expr) {
			return true
		}
		resolved := false
		expr = regexp.MustCompile(`\b[A-Za-z_][A-Za-z_0-9]*\.?[A-Za-z_0-9]*\b`).ReplaceAllStringFunc(expr, func(id string) string {
			if strings.HasPrefix(id, "O_") || strings.Contains(id, ".O_") {
				return id
			}
			name := id[strings.LastIndex(id, ".")+1:]
			if v, ok := consts[name]; ok {
				resolved = true
				return "(" + v + ")"
			}
			return "O_WRONLY" // unknown: counted as writing
		})
		if !resolved {
			return writeFlag.MatchString(expr)
		}
	}
	return true
}

func text(fset *token.FileSet, n ast.Node) string {
	var b strings.Builder
	printer.Fprint(&b, fset, n)
	return b.String()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
