package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// A type the official schema rejects (.docx: application/vnd.….document;
// parameters) is never written, from a tree or an export: the lists pass
// the official validator (issue 9, the .docx item).
func TestSchemaRejectedTypesLeftOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "site")
	testenv.WriteFile(t, src, "index.html", "<!doctype html><title>x</title>")
	testenv.WriteFile(t, src, "report.docx", "PK\x03\x04 not really a document")
	testenv.WriteFile(t, src, "sheet.xls", "\xd0\xcf\x11\xe0")
	export := testenv.WriteFile(t, dir, "records.jsonl", `{"loc":"a","type":"application/vnd.ms-excel","links":[{"rel":"alternate","href":"a.pdf","type":"text/html; charset=utf-8"},{"rel":"describedby","href":"a.json","type":"application/ld+json"}]}`+"\n")
	for name, cfg := range map[string]Config{
		"tree":   testConfig(t, src, filepath.Join(dir, "out-tree")),
		"export": {Export: export, Out: filepath.Join(dir, "out-export"), BaseURL: mustBaseURL(t, "https://example.org/"), At: testAt, FixedTime: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := Build(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(cfg.Out, docsDir, "resourcelist.xml"))
			if err != nil {
				t.Fatal(err)
			}
			list := string(data)
			if strings.Contains(list, "vnd.") || strings.Contains(list, "charset") {
				t.Errorf("a type the schema rejects is written:\n%s", list)
			}
			want := `type="text/html"`
			if name == "export" {
				want = `type="application/ld+json"`
			}
			if !strings.Contains(list, want) {
				t.Errorf("%s left out too:\n%s", want, list)
			}
			if testenv.Official(t) == nil {
				t.Skip("the official validator cannot run here")
			}
			runOfficial(t, cfg.Out)
		})
	}
}
