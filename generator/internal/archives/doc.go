// Package archives publishes three archives of ResourceSync Archives
// (1.0): the Resource List Archive (section 3: [ResourceLists]), the
// Resource Dump Archive (section 4: [ResourceDumps]) and the Change Dump
// Archive (section 6: [ChangeDumps]); changelists.Archive plans and writes
// them, as the Change List Archive (section 5).
//
// Each plans what it lists (the previous build's archived documents kept,
// and this build's if due), gives the live document's rel="archives" link,
// and writes this build's document under archive/, the kept ones again
// byte for byte (their packages through package packages), and the
// archive, oldest first.
package archives
