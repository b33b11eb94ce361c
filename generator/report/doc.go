// Package report keeps what a build tells of itself while it runs: its
// progress ([Stats], which another goroutine may read at any time, as the
// command line's progress line does) and the files it could not publish
// ([Problems], collected from the goroutines that read them).
//
// It also says what a scan could not read ([Unread]), which the build keeps
// as the previous build published it. Stats and Problems may be used from
// several goroutines at once.
package report
