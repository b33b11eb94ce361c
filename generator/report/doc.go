// Package report keeps what a build tells of itself while it runs: its
// progress ([Stats]), the files it could not publish ([Problems]) and what
// a scan could not read ([Unread]). Stats and Problems may be used from
// several goroutines at once.
package report
