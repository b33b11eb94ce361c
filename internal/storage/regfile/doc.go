// Package regfile opens files that must be regular files (a document, a
// cache) without blocking on ones that are not.
//
// A plain open(2) of a FIFO waits until something opens its other end,
// and a read of a character device may never end: a path given by a user,
// or found in a directory, can hold a build forever, and a signal does not
// end a system call that waits. [Open] and [OpenIn] open with O_NONBLOCK,
// which returns at once whatever the file is, then fstat the open file
// (not the path, which may have been replaced in between) and refuse
// anything that is not a regular file with an error wrapping
// [ErrNotRegular]. On a regular file O_NONBLOCK changes nothing.
//
// The functions may be called from several goroutines at once.
package regfile
