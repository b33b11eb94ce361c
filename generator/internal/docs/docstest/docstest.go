// Package docstest gives the tests of the components a document writer
// into a stage of their own.
package docstest

import (
	"os"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// Writer writes the documents of https://example.org/ into resourcesync/
// of a stage in a temporary directory, within the limits of the
// specification; the stage is discarded when the test ends.
func Writer(t testing.TB) *docs.Writer {
	t.Helper()
	stg, err := stage.New(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stg.Discard)
	return &docs.Writer{Stage: stg, Base: "https://example.org/", Dir: "resourcesync", Limits: listwriter.Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}}
}

// Staged returns the content of the document name that d staged, failing
// t if there is none.
func Staged(t testing.TB, d *docs.Writer, name string) string {
	t.Helper()
	b, err := os.ReadFile(d.Stage.Path(d.Dir + "/" + name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
