// Package changelists publishes the Change Lists of a build (ResourceSync
// 1.1, section 12) from the changes it found and those the previous build
// published, and their archive (ResourceSync Archives, section 5).
//
// changelist.xml, the URL the Capability List gives, is one open Change
// List while the changes kept fit one document (the reference client,
// resync, reads no Change List Index); past the limits it is a Change List
// Index over closed lists, each named by the end of the interval it covers
// so that its URL never changes while it is kept. The previous build's
// lists are carried forward byte for byte, each read again and checked,
// until they end before the snapshot time minus [Lists.Keep]. With
// [Lists.ArchiveKeep], every build's changes are also kept as closed
// Change Lists under archive/, listed by changelist-archive.xml.
//
// [Lists.Publish] writes the lists, [Lists.WriteArchive] the archive, after
// the Change Dump (which the build writes in between, from the time
// Publish returns). [Options] are those of any Change List, for the one a
// record export publishes. An [Archive] of intervals is planned the same
// way for the Change Dump Archive, and every archive of package archives
// is written by [Archive.Write].
package changelists
