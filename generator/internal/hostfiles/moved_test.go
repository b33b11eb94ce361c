package hostfiles

import (
	"slices"
	"testing"

	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// TestMovedFiles: the files a publish may move outside the documents
// directory (the only ones a journal may name) are the Source Description
// and the hosts' files, no more and no fewer.
func TestMovedFiles(t *testing.T) {
	t.Parallel()
	want := append([]string{stage.WellKnownFile}, hosting.RootFiles...)
	if got := stage.Moved; !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("stage.Moved = %q, want %q", got, want)
	}
}
