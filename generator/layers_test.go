package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers are the packages of the module from the bottom up: a package
// imports only packages of the layers below its own. The first layer is
// the foundation every part shares (its packages may import one another;
// Go forbids cycles), and a package no layer names is a failure, so that a
// new one takes its place here, in the order of generator/doc.go.
var layers = [][]string{
	{"hashing", "internal/...", "cmd/rsgen/internal/signals"},
	{"zipdump", "validate", "hosting", "templates"},
	{"generator/report", "generator/internal/spill"},
	{"generator/internal/docs", "generator/internal/treescan", "generator/internal/spill/spilltest"},
	{"generator/internal/changelists", "generator/internal/packages", "generator/internal/detect", "generator/internal/hostfiles", "generator/internal/bucketscan", "generator/internal/archivescan", "generator/internal/docs/docstest"},
	{"generator/internal/archives", "generator/internal/exports"},
	{"generator/internal/dumps"},
	{"generator"},
	{"cmd/...", "bench/..."},
}

// testOnly are the packages that only tests import.
var testOnly = []string{"internal/testenv", "generator/internal/spill/spilltest", "generator/internal/docs/docstest", "internal/published/notify/notifytest"}

// layerOf returns the layer of the package at dir (slash-separated, from
// the module's root), or -1.
func layerOf(dir string) int {
	for i, l := range layers {
		for _, p := range l {
			if pre, ok := strings.CutSuffix(p, "/..."); ok && (dir == pre || strings.HasPrefix(dir, pre+"/")) || dir == p {
				return i
			}
		}
	}
	return -1
}

// TestLayers: no package imports one above it, or one beside it above the
// foundation, and only tests import the packages made for them; the
// folders show the architecture, and this keeps it so.
func TestLayers(t *testing.T) {
	t.Parallel()
	const module = "github.com/rsgen/rsgen/"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	unplaced := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		dir := filepath.ToSlash(rel)
		own := layerOf(dir)
		if own < 0 {
			if !unplaced[dir] {
				t.Errorf("%s: a package of no layer; give it one in layers", dir)
			}
			unplaced[dir] = true
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			target, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module)
			if !ok {
				continue
			}
			switch l := layerOf(target); {
			case slices.Contains(testOnly, target):
				t.Errorf("%s imports %s, which only tests may import", path.Join(dir, filepath.Base(p)), target)
			case l < 0:
				t.Errorf("%s imports %s, a package of no layer", path.Join(dir, filepath.Base(p)), target)
			case l > own, l == own && own > 0:
				t.Errorf("%s imports %s: layer %d imports layer %d", path.Join(dir, filepath.Base(p)), target, own, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("%d files checked under %s: the walk missed the module", checked, root)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("%s is not the module's root: %v", root, err)
	}
}

// TestFrontExports: package generator exports what a Go program needs to
// build a site and no more (issue 25): at most 40 top-level identifiers,
// each member of a const or var block counted, and no alias of another
// package's type.
func TestFrontExports(t *testing.T) {
	t.Parallel()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range pkgs["generator"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
						if s.Name.IsExported() && s.Assign.IsValid() {
							t.Errorf("%s is an alias: a type of the front is its own", s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	if len(names) > 40 {
		slices.Sort(names)
		t.Errorf("generator exports %d identifiers, more than 40: %v", len(names), names)
	}
}
