// Package confined is the one way rsgen writes, renames and removes files
// in a directory it does not own alone: the output directory (which is
// often SOURCE, a tree anyone with commit rights shapes), its stages, the
// file of a hash cache or of a notification state.
//
// A [Root] is a directory opened once, by the path a user gave (a symbolic
// link in that path is the user's own). Every name given to its methods is
// relative to it, slash-separated, and resolved without following a
// symbolic link: each directory on the way is opened with O_NOFOLLOW and
// O_DIRECTORY from the one before, and the last name is acted on by the
// *at call that does not follow it (openat with O_NOFOLLOW, unlinkat,
// renameat, linkat without AT_SYMLINK_FOLLOW, utimensat with
// AT_SYMLINK_NOFOLLOW). A symbolic link on the way fails the call with an
// error wrapping [ErrSymlink]; a last name that is a link is created over
// by nothing, removed or renamed as the link itself, never through it.
// Systems without those calls (Windows, Plan 9) use os.Root, which refuses
// every name that leads outside the directory.
//
// What a build reads from the user is not confined here: it reads what
// the user points it at. A Root reads only the files rsgen merges into or
// owns in the output (ReadFile: a host's configuration file, the manifest
// of resourcesync/), through no symbolic link either. TryLock and SyncDir
// are the lock and the directory sync that stage and hashcache build on.
// The test TestOnlyConfinedWrites keeps every other package from writing,
// renaming or removing files by path.
//
// A Root may be used from several goroutines.
package confined
