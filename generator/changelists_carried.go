package generator

import (
	"context"
	"fmt"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// readCarried reads the changes of a Change List of the previous build
// again: the build holds no copy of its bytes.
func (ch *changeLists) readCarried(ctx context.Context, cl *previous.ChangeList) ([]*rsxml.Entry, error) {
	rc, err := ch.prev.OpenList(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	defer rc.Close()
	_, entries, err := rsxml.ReadAll(rc, rsxml.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s again: %w", ErrPrevious, cl.URL, err)
	}
	return entries, nil
}

// copyCarried publishes a Change List of the previous build again, byte
// for byte, copying it from the previous output (or fetching it again)
// into the stage: the bytes that Read checked, or a failure.
func (ch *changeLists) copyCarried(ctx context.Context, c carried) error {
	rc, err := ch.prev.OpenList(ctx, c.list)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	return docs.PreviousErr(ch.docs.Copy(c.name, c.list.URL, rc))
}
