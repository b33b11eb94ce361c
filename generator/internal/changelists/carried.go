package changelists

import (
	"context"
	"fmt"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// readCarried reads the changes of a Change List of the previous build
// again: the build holds no copy of its bytes.
func (ch *Lists) readCarried(ctx context.Context, cl *previous.ChangeList) ([]*rsxml.Entry, error) {
	rc, err := ch.Prev.OpenList(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	defer rc.Close()
	_, entries, err := rsxml.ReadAll(rc, rsxml.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w: reading again: %w", docs.ErrPrevious, docs.Naming(cl.URL, err))
	}
	return entries, nil
}

// copyCarried publishes a Change List of the previous build again, byte
// for byte, copying it from the previous output (or fetching it again)
// into the stage: the bytes that Read checked, or a failure.
func (ch *Lists) copyCarried(ctx context.Context, c carried) error {
	rc, err := ch.Prev.OpenList(ctx, c.list)
	if err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	return docs.PreviousErr(ch.Docs.Copy(c.name, c.list.URL, rc))
}
