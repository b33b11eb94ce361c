// Package changelists publishes a build's Change Lists (ResourceSync 1.1,
// section 12), from its changes and the previous build's, and their
// archive (ResourceSync Archives, section 5).
//
// changelist.xml is one open Change List while the changes kept fit one
// document (resync reads no Change List Index); past the limits it is an
// index over closed lists, each named by the end of its interval so that
// its URL never changes. The previous build's lists are carried forward
// byte for byte, each read again and checked, until they end before the
// snapshot time minus [Lists.Keep]. With [Lists.ArchiveKeep] every
// build's changes are also kept under archive/.
//
// [Lists.Publish] writes the lists, [Lists.WriteArchive] the archive after
// the Change Dump. [Options] are any Change List's (a record export's
// too). Every archive is an [Archive]; those of intervals are planned by
// [PlanArchive].
package changelists
