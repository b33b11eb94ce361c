package generator

import "github.com/rsgen/rsgen/generator/internal/report"

// Stats counts a build's progress (package report). Its fields are
// updated while the build runs and may be read from other goroutines at
// any time.
type Stats = report.Stats

// Phase is a step of a build, in the order a build takes them; steps it
// has no work for are skipped.
type Phase = report.Phase

// The steps of a build.
const (
	PhaseStarting  = report.PhaseStarting  // checking the configuration, opening the source
	PhasePrevious  = report.PhasePrevious  // reading the previous build (Config.Changes.Previous)
	PhaseScanning  = report.PhaseScanning  // walking the source and hashing its files, or reading the records of an export
	PhasePackaging = report.PhasePackaging // writing the packages of the Resource Dump (of a tree or an archive)
	PhaseWriting   = report.PhaseWriting   // writing the lists and the other documents
	PhaseChecking  = report.PhaseChecking  // validating what was written, before it is published
)

// A Problem is a file (or a directory, or a record of an export) that a
// build could not publish, and why (package report).
type Problem = report.Problem
