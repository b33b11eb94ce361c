// Package regfile opens files that must be regular files (a document, a
// cache) without blocking on ones that are not: an open(2) of a FIFO waits
// for its other end, a read of a device may never end, and a signal does
// not end such a call. [Open] and [OpenIn] open with O_NONBLOCK (which
// changes nothing for a regular file), then fstat the open file (not the
// path, which may have been replaced) and refuse anything else with
// [ErrNotRegular]. They may be called from several goroutines.
package regfile
