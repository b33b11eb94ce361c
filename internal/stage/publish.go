package stage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/display"
)

// journalName is the file in a stage that records a publish under way:
// with it, the next build can finish a publish that a kill interrupted, or
// undo it.
const journalName = ".publishing"

// backupDir, in a stage, keeps the old version of each file outside the
// documents directory until the new one is in place.
const backupDir = ".old"

// A journal is what a publish under way records in its stage, before the
// first change to the output.
type journal struct {
	Docs string   `json:"docs"` // the identity of the staged documents directory (dirID)
	Root []string `json:"root"` // files outside the documents directory, in the order moved
	Old  []string `json:"old"`  // those of Root with an old version, kept in backupDir
	Made []string `json:"made"` // directories of the output created for Root (the topmost of each)
}

// Publish moves the staged output into place and syncs it to disk:
//
//  1. it checks that the documents directory in place holds only what
//     rsgen wrote, and no snapshot newer than the one staged;
//  2. it records the staged documents in their manifest, syncs every
//     staged file and directory, and writes the journal;
//  3. it makes the directories the files outside the documents directory
//     need, and keeps the old version of each;
//  4. it checks again that the documents directory in place holds only
//     what rsgen wrote (a user may have added a file meanwhile), then
//     swaps it with the staged one in one atomic rename (where the system
//     has one): this is the commit;
//  5. it renames the files outside it (the Source Description, the host
//     files) over their old versions, and syncs their directories;
//  6. it removes the stage, which now holds the old documents.
//
// A Destination reading during Publish sees the old documents or the new
// ones, never a mix within the documents directory; the Source Description
// names the Capability List, which both have. If a step fails, what was
// done is undone: the output is as it was. If the process dies (kill -9,
// power cut) after step 2, the next New finishes the publish if it
// had reached step 4, and undoes it otherwise.
func (s *Stage) Publish() error {
	newDocs := filepath.Join(s.dir, DocsDir)
	if err := s.step("check"); err != nil {
		return err
	}
	prev, err := checkOwned(s.out)
	if err != nil {
		return err
	}
	if err := checkNotOlder(prev, s.at); err != nil {
		return err
	}
	if err := s.step("manifest"); err != nil {
		return err
	}
	if err := writeManifest(newDocs, s.at); err != nil {
		return fmt.Errorf("writing %s/%s: %w", DocsDir, ManifestName, display.WithoutPath(err))
	}
	id, err := dirID(newDocs)
	if err != nil {
		return err
	}
	j := &journal{Docs: id}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); n != DocsDir && n != backupDir && n != journalName {
			if err := collectFiles(s.dir, n, &j.Root); err != nil {
				return err
			}
		}
	}
	// Which parents of the files outside the documents directory are to be
	// made, and which files have an old version to keep, is in the journal
	// before anything in the output changes: a kill from then on leaves
	// what the next build can undo or finish.
	for _, rel := range j.Root {
		parent := filepath.Dir(filepath.Join(s.out, rel))
		if _, err := os.Stat(parent); err != nil {
			top, _ := filepath.Rel(s.out, topMissing(parent))
			if !slices.Contains(j.Made, top) {
				j.Made = append(j.Made, top)
			}
		}
		if _, err := os.Lstat(filepath.Join(s.out, rel)); err == nil {
			j.Old = append(j.Old, rel)
		}
	}
	if err := s.step("sync"); err != nil {
		return err
	}
	if err := syncTree(s.dir); err != nil {
		return fmt.Errorf("syncing the staged files: %w", err)
	}
	if err := s.step("journal"); err != nil {
		return err
	}
	if err := writeJournal(s.dir, j); err != nil {
		return fmt.Errorf("writing the journal of the publish: %w", display.WithoutPath(err))
	}
	// Nothing after the swap should be able to fail for want of a parent,
	// and a failure puts the old versions back.
	if err := s.step("prepare"); err != nil {
		s.rollBack(j)
		return err
	}
	if err := s.prepareRoot(j); err != nil {
		s.rollBack(j)
		return err
	}
	if err := s.step("swap"); err != nil {
		s.rollBack(j)
		return err
	}
	// Checked again just before the swap: a file a user put into the
	// documents directory while the stage was synced would otherwise be
	// swapped out with the old documents and removed with the stage.
	if _, err := checkOwned(s.out); err != nil {
		s.rollBack(j)
		return err
	}
	if _, err := exchange(newDocs, filepath.Join(s.out, DocsDir)); err != nil {
		s.rollBack(j)
		return fmt.Errorf("moving %s into place: %w", DocsDir, unwrapLink(err))
	}
	if err := s.step("sync output"); err != nil {
		s.rollBack(j)
		return err
	}
	if err := syncDir(s.out); err != nil {
		s.rollBack(j)
		return fmt.Errorf("syncing %s: %w", DocsDir, display.WithoutPath(err))
	}
	for _, rel := range j.Root {
		if err := s.step("rename " + filepath.ToSlash(rel)); err != nil {
			s.rollBack(j)
			return err
		}
		if err := os.Rename(filepath.Join(s.dir, rel), filepath.Join(s.out, rel)); err != nil {
			s.rollBack(j)
			return fmt.Errorf("moving %s into place: %w", filepath.ToSlash(rel), unwrapLink(err))
		}
	}
	if err := s.step("sync directories"); err != nil {
		s.rollBack(j)
		return err
	}
	if err := syncParents(s.out, j.Root); err != nil {
		s.rollBack(j)
		return fmt.Errorf("syncing the output: %w", display.WithoutPath(err))
	}
	// The new output is in place and on disk: failing to remove what it
	// displaced is not a failure of the build, and the next build removes
	// it.
	if err := s.step("clean up"); err != nil {
		s.release()
		return nil
	}
	os.Remove(filepath.Join(s.dir, journalName))
	os.RemoveAll(s.dir)
	s.release()
	return nil
}

// step calls the test hook of Publish, if any.
func (s *Stage) step(name string) error {
	if s.StepHook == nil {
		return nil
	}
	return s.StepHook(name)
}

// prepareRoot creates the missing parents of j.Root in the output and
// links (or copies) the old version of each into the stage's backupDir.
func (s *Stage) prepareRoot(j *journal) error {
	for _, rel := range j.Root {
		parent := filepath.Dir(filepath.Join(s.out, rel))
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.ToSlash(filepath.Dir(rel)), display.WithoutPath(err))
		}
	}
	for _, rel := range j.Old {
		dst, old := filepath.Join(s.out, rel), filepath.Join(s.dir, backupDir, rel)
		if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
			return err
		}
		if err := os.Link(dst, old); err != nil {
			if err := copyFile(dst, old); err != nil {
				return fmt.Errorf("keeping the old %s: %w", filepath.ToSlash(rel), display.WithoutPath(err))
			}
		}
	}
	return syncParents(s.out, j.Root)
}

// copyFile copies the regular file src to dst, a new file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return closeAfter(out, err)
}

// rollBack undoes a publish that failed: the documents are swapped back if
// they were swapped, then each file outside them gets its old version back
// (or is removed, if it had none), then the directories made for them are
// removed. Done in this order, a kill in the middle leaves what the next
// build's recoverStages undoes the same way.
//
// If the documents cannot be swapped back, the stage, which holds the old
// ones, is kept for the next build, which finishes the publish instead.
func (s *Stage) rollBack(j *journal) {
	if !rollBack(s.out, s.dir, j) {
		s.dir = "" // not Discard's to remove
	}
}

// rollBack undoes the publish of j from the stage dir into out; it reports
// false, having changed nothing, if the documents cannot be swapped back.
func rollBack(out, dir string, j *journal) bool {
	newDocs, oldDocs := filepath.Join(dir, DocsDir), filepath.Join(out, DocsDir)
	if inPlace(out, j) {
		var err error
		if _, lerr := os.Lstat(newDocs); errors.Is(lerr, fs.ErrNotExist) {
			err = os.Rename(oldDocs, newDocs) // there were no old documents
		} else {
			_, err = exchange(newDocs, oldDocs)
		}
		if err != nil {
			return false
		}
		syncDir(out)
	}
	for _, rel := range slices.Backward(j.Root) {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			continue // not moved
		}
		dst := filepath.Join(out, rel)
		if slices.Contains(j.Old, rel) {
			os.Rename(filepath.Join(dir, backupDir, rel), dst)
		} else {
			os.Remove(dst)
		}
	}
	for _, top := range slices.Backward(j.Made) {
		removeEmptyTree(filepath.Join(out, top))
	}
	syncParents(out, j.Root)
	return true
}

// rollForward finishes a publish that was killed after its swap: the
// files outside the documents directory not yet moved are moved.
func rollForward(out, dir string, j *journal) {
	newDocs, oldDocs := filepath.Join(dir, DocsDir), filepath.Join(out, DocsDir)
	if _, err := os.Lstat(oldDocs); errors.Is(err, fs.ErrNotExist) {
		os.Rename(newDocs, oldDocs) // killed between the two renames of exchangeByRename
		syncDir(out)
	}
	for _, rel := range j.Root {
		src := filepath.Join(dir, rel)
		if _, err := os.Lstat(src); err != nil {
			continue // moved already
		}
		dst := filepath.Join(out, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		os.Rename(src, dst)
	}
	syncParents(out, j.Root)
}

// inPlace reports whether the documents directory of the publish of j is
// in place in out.
func inPlace(out string, j *journal) bool {
	id, err := dirID(filepath.Join(out, DocsDir))
	return err == nil && id == j.Docs
}

// committed reports whether the publish of j, killed, is to be finished:
// its documents are in place, or out has none and they are ready in the
// stage dir (a first publish, or one killed between the two renames of
// exchangeByRename).
func committed(out, dir string, j *journal) bool {
	if inPlace(out, j) {
		return true
	}
	if _, err := os.Lstat(filepath.Join(out, DocsDir)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	id, err := dirID(filepath.Join(dir, DocsDir))
	return err == nil && id == j.Docs
}

// removeEmptyTree removes dir and the directories under it, if they hold
// no file.
func removeEmptyTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeEmptyTree(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}

// recoverStages deals with the stages in out that no running build holds:
// those of builds killed while publishing are finished or undone (by their
// journal), then every such stage is removed. The caller holds out's lock.
func recoverStages(out string) {
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		dir := filepath.Join(out, e.Name())
		lock, err := lockDir(dir)
		if err != nil {
			continue // in use, or not ours to judge
		}
		if j, err := readJournal(dir); err == nil {
			if committed(out, dir, j) {
				rollForward(out, dir, j)
			} else if !rollBack(out, dir, j) {
				lock.unlock()
				continue // keeps the old documents: never removed
			}
		}
		os.RemoveAll(dir)
		lock.unlock()
	}
	syncDir(out)
}

func writeJournal(dir string, j *journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, journalName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err := closeAfter(f, err); err != nil {
		return err
	}
	return syncDir(dir)
}

func readJournal(dir string) (*journal, error) {
	data, err := os.ReadFile(filepath.Join(dir, journalName))
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	for _, names := range [][]string{j.Root, j.Old, j.Made} {
		for _, rel := range names {
			if !journaled(rel) {
				return nil, fmt.Errorf("%s names %q, which no publish moves", journalName, rel)
			}
		}
	}
	return &j, nil
}

// journaled reports whether rel may be named in a journal: a publish moves
// only files inside the output, and outside its documents directory and
// its stages. A journal naming anything else was not written by a publish,
// and recovering it could remove files rsgen did not write.
func journaled(rel string) bool {
	if !filepath.IsLocal(rel) {
		return false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(filepath.Clean(rel)), "/")
	return first != DocsDir && first != "." && !strings.HasPrefix(first, Prefix)
}

// syncTree syncs every file and directory under dir to disk: after a power
// cut, a renamed file must not turn out empty.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return syncDir(p)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		return closeAfter(f, f.Sync())
	})
}

// syncParents syncs out and the directories of the files rels under it.
func syncParents(out string, rels []string) error {
	dirs := []string{out}
	for _, rel := range rels {
		if d := filepath.Dir(filepath.Join(out, rel)); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// unwrapLink drops the two paths an *os.LinkError carries: the caller
// names the file once, by its name in the output.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}

// collectFiles appends the files under dir/name (relative names) to files.
func collectFiles(dir, name string, files *[]string) error {
	return filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		*files = append(*files, rel)
		return nil
	})
}
