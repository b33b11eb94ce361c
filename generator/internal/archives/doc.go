// Package archives publishes the archives of ResourceSync Archives (1.0)
// that keep dumps and snapshots: the Resource List Archive (section 3:
// ResourceLists), the Resource Dump Archive (section 4: ResourceDumps) and
// the Change Dump Archive (section 6: ChangeDumps). The Change List Archive
// (section 5) is published with the Change Lists, by package changelists,
// whose Archive plans the Change Dump Archive too (both archive intervals)
// and writes all four; what every archive shares (retention, the archive
// document, names) is in package docs.
//
// Each archiver plans what its archive lists in a build (the previous
// build's archived documents that are kept, and this build's if one is
// due), gives the link of the live document to the archive
// (rel="archives"), and writes the archive: this build's document under
// archive/, the kept ones again byte for byte (each read and checked, its
// packages published again by package packages), and the archive document
// listing them, oldest first.
package archives
