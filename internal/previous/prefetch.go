package previous

import (
	"context"
	"io"
)

// A prefetch is a document of the Resource List being fetched while the
// one before it is read: over HTTP, with a directory to keep it in, a
// build then waits for no download but the first.
type prefetch struct {
	part   int
	done   chan struct{}
	cancel context.CancelFunc
	body   io.ReadCloser
	err    error
}

// fetch returns the document part: the one fetched ahead, or fetched now.
func (l *listReader) fetch(part int) (io.ReadCloser, error) {
	if p := l.ahead; p != nil && p.part == part {
		l.ahead = nil
		<-p.done
		p.cancel()
		return p.body, p.err
	}
	if err := l.stopAhead(); err != nil {
		return nil, err
	}
	return l.site.src.part(l.ctx, l.site.parts[part], l.site.opts.maxBytes, l.spillDir)
}

// fetchAhead starts fetching the document part, if there is one and it is
// fetched over the network into a file.
func (l *listReader) fetchAhead(part int) {
	if l.spillDir == "" || part >= len(l.site.parts) || l.ahead != nil {
		return
	}
	u := l.site.parts[part]
	if _, local := l.site.src.local(u); local {
		return
	}
	ctx, cancel := context.WithCancel(l.ctx)
	p := &prefetch{part: part, done: make(chan struct{}), cancel: cancel}
	l.ahead = p
	go func() {
		defer close(p.done)
		p.body, p.err = l.site.src.part(ctx, u, l.site.opts.maxBytes, l.spillDir)
	}()
}

// stopAhead cancels the fetch ahead, if any, waits for it to end and
// removes what it fetched.
func (l *listReader) stopAhead() error {
	p := l.ahead
	if p == nil {
		return nil
	}
	l.ahead = nil
	p.cancel()
	<-p.done
	if p.body != nil {
		return p.body.Close()
	}
	return nil
}
