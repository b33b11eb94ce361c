// Package confined is the one way rsgen writes, renames and removes files
// in a directory it does not own alone: the output directory (often
// SOURCE, a tree anyone with commit rights shapes), its stages, the file
// of a hash cache or of a notification state.
//
// A [Root] is a directory opened once, by the path a user gave (a link in
// that path is the user's own). Every name given to its methods is
// relative to it, slash-separated, and resolved without following a
// symbolic link: each directory on the way is opened with O_NOFOLLOW and
// O_DIRECTORY from the one before, and the last name is acted on by the
// *at call that does not follow it. A link on the way fails the call with
// [ErrSymlink]; a last name that is a link is removed or renamed itself,
// never written through. os.Root is not enough here: it follows links
// that stay inside the directory. Systems without those calls (Windows,
// Plan 9) use it all the same, since it refuses names leading outside.
//
// A Root reads only the files rsgen merges into or owns in the output
// (ReadFile), through no link either; what a build reads from the user is
// not confined. TestOnlyConfinedWrites keeps every other package from
// writing, renaming or removing files by path.
//
// A Root may be used from several goroutines.
package confined
