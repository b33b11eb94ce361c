// Package generator plans and writes the ResourceSync documents of one
// build: it is what "rsgen build" does, without the command line.
//
// [Build] runs one build from a [Config], after [Config.Validate] has
// checked its fields and how they combine (as [FieldError] values that
// name the fields); a build that fails returns an [*Error] whose [Kind]
// says why. [BuildSite] publishes several resource sets into one output
// directory: each set is a build of a Config named by its Set, writing
// into resourcesync/<set>/ of one shared stage; the Source Description
// lists every set's Capability List, and the stage is checked and
// published once. Build is a BuildSite of one unnamed set, whose documents
// are in resourcesync/ itself. [ReadSite] reads the configuration file of
// rsgen build --config (docs/SETS.md).
//
// # The data walk
//
//	file (a tree's, or an archive's member)
//	  → hashing job (a pool of workers; the hash cache spares the unchanged)
//	  → digests → Resource, spooled in the order of the paths
//	  → joined with the previous build's Resource List: changes, lastmods
//	  → packaged into the Resource Dump (files that changed are left out)
//	  → entries of the Resource List, the Change Lists, the dumps
//	  → documents in the stage → checked → published
//
// A record export takes the same walk from its records, sorted on disk.
// The resources pass from step to step through spool files in the stage,
// one at a time, so a build's memory does not depend on the number of
// files.
//
// # Components
//
// This package orders the steps (build.run), wires the components, guards
// against publishing what would lose data (an empty source, mass
// deletion, a previous build of another site, dumps or archives dropped),
// and writes the Capability List and the Source Description. The
// components are packages under generator/internal, each with a doc.go
// (docs/DEVELOPMENT.md lists them); generator/layers_test.go keeps them in
// layers.
//
// # Guarantees
//
// Everything is written into a stage inside the output directory, checked
// with package validate, and moved into place only when the whole build
// succeeded; a failure or an interrupt leaves the published output as it
// was (docs/PUBLISHING.md). Output depends only on the input and the
// Config, whatever Config.Jobs is; with a fixed snapshot time (Config.At
// with FixedTime) no clock reading reaches a document or a package.
//
// Build may be called from several goroutines for different output
// directories; a second build into a directory a build holds fails with
// KindOutput. [Config.Stats] may be read while a build runs.
package generator
