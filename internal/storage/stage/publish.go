package stage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/internal/text/display"
)

const (
	journalName = ".publishing" // by which the next build finishes or undoes a killed publish
	backupDir   = ".old"        // the old version of each file outside the documents directory
)

// A journal is what a publish records in its stage before the first change
// to the output.
type journal struct {
	Stage string   `json:"stage"` // the identity of the stage directory (dirID)
	Self  string   `json:"self"`  // the identity of the journal file (fileID)
	Docs  string   `json:"docs"`  // the identity of the staged documents directory (dirID)
	Root  []string `json:"root"`  // files outside the documents directory, in the order moved
	Old   []string `json:"old"`   // those of Root with an old version, kept in backupDir
	Made  []string `json:"made"`  // directories of the output created for Root
}

// Publish moves the staged output into place and syncs it to disk:
//
//  1. it runs Check;
//  2. it writes the manifest, syncs every staged file, writes the journal;
//  3. it makes the parents of the files outside the documents directory,
//     and keeps the old version of each;
//  4. it runs checkOwned again (a user may have added a file meanwhile),
//     then swaps the documents directory with the staged one in one
//     atomic rename where the system has one: this is the commit;
//  5. it renames the files outside it over their old versions;
//  6. it removes the stage, which now holds the old documents.
//
// A Destination reading meanwhile sees the old documents or the new ones,
// never a mix within the documents directory. If a step fails, what was
// done is undone. If the process dies after step 2, the next New finishes
// the publish if it had reached step 4, and undoes it otherwise.
func (s *Stage) Publish() error {
	if err := s.step("check"); err != nil {
		return err
	}
	if err := s.Check(); err != nil {
		return err
	}
	if err := s.step("manifest"); err != nil {
		return err
	}
	if err := writeManifest(s.root, s.name+"/"+DocsDir, s.at); err != nil {
		return fmt.Errorf("writing %s/%s: %w", DocsDir, ManifestName, display.WithoutPath(err))
	}
	j, err := s.plan()
	if err != nil {
		return err
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
	if err := writeJournal(s.root, s.name, j); err != nil {
		return fmt.Errorf("writing the journal of the publish: %w", display.WithoutPath(err))
	}
	if err := s.swap(j); err != nil {
		if !rollBack(s.root, s.name, j) {
			s.name = "" // the old documents are there: not Discard's to remove
		}
		return err
	}
	// The new output is in place: the next build removes what is left.
	if err := s.step("clean up"); err == nil {
		s.root.Remove(s.name + "/" + journalName)
		s.root.RemoveAll(s.name)
	}
	s.release()
	return nil
}

// plan is the journal of the publish of s: the parents to make of the
// files outside the documents directory, and those with an old version.
func (s *Stage) plan() (*journal, error) {
	id, err := dirID(filepath.Join(s.dir, DocsDir))
	if err != nil {
		return nil, err
	}
	j := &journal{Docs: id}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if n := e.Name(); n != DocsDir && n != backupDir && n != journalName {
			if err := collectFiles(s.dir, n, &j.Root); err != nil {
				return nil, err
			}
		}
	}
	for _, rel := range j.Root {
		if !slices.Contains(Moved, rel) {
			return nil, fmt.Errorf("staged %s, which a publish does not move (a bug of rsgen)", rel)
		}
		if parent := path.Dir(rel); parent != "." {
			info, err := os.Lstat(filepath.Join(s.out, parent))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				if !slices.Contains(j.Made, parent) {
					j.Made = append(j.Made, parent)
				}
			case err != nil:
				return nil, err
			case !info.IsDir():
				return nil, notADirectory(parent, info)
			}
		}
		if _, err := os.Lstat(filepath.Join(s.out, filepath.FromSlash(rel))); err == nil {
			j.Old = append(j.Old, rel)
		}
	}
	return j, nil
}

// swap moves the staged output into place as j says, and syncs it; the
// caller rolls back on a failure.
func (s *Stage) swap(j *journal) error {
	if err := s.step("prepare"); err != nil {
		return err
	}
	if err := s.prepareRoot(j); err != nil {
		return err
	}
	if err := s.step("swap"); err != nil {
		return err
	}
	// A file a user put there meanwhile would be removed with the stage.
	if _, err := checkOwned(s.out); err != nil {
		return err
	}
	if err := exchange(s.root, s.name+"/"+DocsDir, DocsDir); err != nil {
		return fmt.Errorf("moving %s into place: %w", DocsDir, unwrapLink(err))
	}
	if err := s.step("sync output"); err != nil {
		return err
	}
	if err := confined.SyncDir(s.out); err != nil {
		return fmt.Errorf("syncing %s: %w", DocsDir, display.WithoutPath(err))
	}
	for _, rel := range j.Root {
		if err := s.step("rename " + rel); err != nil {
			return err
		}
		if err := s.root.Rename(s.name+"/"+rel, s.root, rel); err != nil {
			return fmt.Errorf("moving %s into place: %w", rel, unwrapLink(err))
		}
	}
	if err := s.step("sync directories"); err != nil {
		return err
	}
	if err := syncParents(s.out, j.Root); err != nil {
		return fmt.Errorf("syncing the output: %w", display.WithoutPath(err))
	}
	return nil
}

func (s *Stage) step(name string) error {
	if s.StepHook != nil {
		return s.StepHook(name)
	}
	return nil
}

// prepareRoot makes the parents of j.Root in the output and links (or
// copies) the old version of each into the stage's backupDir.
func (s *Stage) prepareRoot(j *journal) error {
	for _, rel := range j.Root {
		if err := s.root.MkdirAll(path.Dir(rel), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", path.Dir(rel), display.WithoutPath(err))
		}
	}
	for _, rel := range j.Old {
		old := s.name + "/" + backupDir + "/" + rel
		if err := s.root.LinkAt(rel, s.root, old); err != nil {
			if err := copyFile(s.root, rel, old); err != nil {
				return fmt.Errorf("keeping the old %s: %w", rel, display.WithoutPath(err))
			}
		}
	}
	return syncParents(s.out, j.Root)
}

func copyFile(root *confined.Root, src, dst string) error {
	in, _, err := root.OpenRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := root.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return confined.CloseAfter(out, err)
}

// rollBack undoes the failed publish of j from the stage dir: the
// documents are swapped back, each file outside them gets its old version
// back (or is removed), then the directories made for them are removed; a
// kill in the middle leaves what recoverStages undoes the same way. It
// reports false, having changed nothing, if the documents cannot be
// swapped back: the stage, which holds the old ones, is kept for the next
// build, which finishes the publish instead.
func rollBack(root *confined.Root, dir string, j *journal) bool {
	out := root.Name()
	newDocs := dir + "/" + DocsDir
	if inPlace(out, j) {
		var err error
		if _, lerr := os.Lstat(root.Path(newDocs)); errors.Is(lerr, fs.ErrNotExist) {
			err = root.Rename(DocsDir, root, newDocs) // there were no old documents
		} else {
			err = exchange(root, newDocs, DocsDir)
		}
		if err != nil {
			return false
		}
		confined.SyncDir(out)
	}
	for _, rel := range slices.Backward(j.Root) {
		if _, err := os.Lstat(root.Path(dir + "/" + rel)); err == nil {
			continue // not moved
		}
		if slices.Contains(j.Old, rel) {
			root.Rename(dir+"/"+backupDir+"/"+rel, root, rel)
		} else {
			root.Remove(rel)
		}
	}
	for _, top := range slices.Backward(j.Made) {
		root.RemoveDir(top)
	}
	syncParents(out, j.Root)
	return true
}

// rollForward finishes a publish killed after its swap: it moves the files
// outside the documents directory not moved yet.
func rollForward(root *confined.Root, dir string, j *journal) {
	out := root.Name()
	if _, err := os.Lstat(filepath.Join(out, DocsDir)); errors.Is(err, fs.ErrNotExist) {
		root.Rename(dir+"/"+DocsDir, root, DocsDir) // killed between the two renames of exchangeByRename
		confined.SyncDir(out)
	}
	for _, rel := range j.Root {
		src := dir + "/" + rel
		if _, err := os.Lstat(root.Path(src)); err != nil {
			continue // moved already
		}
		root.MkdirAll(path.Dir(rel), 0o755)
		root.Rename(src, root, rel)
	}
	syncParents(out, j.Root)
}

func inPlace(out string, j *journal) bool {
	id, err := dirID(filepath.Join(out, DocsDir))
	return err == nil && id == j.Docs
}

// committed reports whether the killed publish of j is to be finished: its
// documents are in place, or out has none and they are ready in the stage
// dir (a first publish, or one killed inside exchangeByRename).
func committed(out, dir string, j *journal) bool {
	if inPlace(out, j) {
		return true
	}
	if _, err := os.Lstat(filepath.Join(out, DocsDir)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	id, err := dirID(filepath.Join(out, dir, DocsDir))
	return err == nil && id == j.Docs
}

// recoverStages finishes or undoes, by their journal, the publishes of
// killed builds in root (stages no running build holds), and removes those
// stages. A stage whose journal rsgen cannot prove it wrote (readJournal)
// is left alone and named in a notice. With dry, nothing is changed: each
// stage is named in a notice. The caller holds root's lock.
func recoverStages(root *confined.Root, dry bool) (notices []string) {
	out := root.Name()
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		dir := e.Name()
		lock, err := lockDir(filepath.Join(out, dir))
		if err != nil {
			continue // in use, or not ours to judge
		}
		j, err := readJournal(root, dir)
		untouched := errors.Is(err, fs.ErrNotExist) || errors.Is(err, errIncomplete) // killed before it changed anything
		switch {
		case err != nil && !untouched:
			notices = append(notices, fmt.Sprintf("%s was left alone: %v; rsgen acts only on a journal it wrote, and never publishes that directory: remove it if it is not yours",
				display.Name(dir), err))
		case dry && untouched:
			notices = append(notices, fmt.Sprintf("%s, left by a killed build, is left for the next build to remove (--dry-run)", display.Name(dir)))
		case dry:
			how := "undo"
			if committed(out, dir, j) {
				how = "finish"
			}
			notices = append(notices, fmt.Sprintf("%s holds a publish that a killed build left halfway: the next build will %s it before it reads the output; this dry run read the output as it is (--dry-run changes nothing)",
				display.Name(dir), how))
		case untouched:
			root.RemoveAll(dir)
		case committed(out, dir, j):
			rollForward(root, dir, j)
			root.RemoveAll(dir)
		case rollBack(root, dir, j): // else it keeps the old documents: never removed
			root.RemoveAll(dir)
		}
		unlock(lock)
	}
	confined.SyncDir(out)
	return notices
}

// writeJournal writes j in the stage dir of root, with the identities of
// that directory and of the journal itself (readJournal checks them).
func writeJournal(root *confined.Root, dir string, j *journal) error {
	var err error
	if j.Stage, err = stageID(root.Path(dir)); err != nil {
		return err
	}
	f, err := root.OpenFile(dir+"/"+journalName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	j.Self, err = fileID(f)
	var data []byte
	if err == nil {
		data, err = json.Marshal(j)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err := confined.CloseAfter(f, err); err != nil {
		return err
	}
	return confined.SyncDir(root.Path(dir))
}

var (
	errIncomplete = errors.New("an incomplete journal") // cut short by a kill, before the output changed
	errForeign    = errors.New("its journal was not written by a publish of rsgen's")
)

// readJournal reads the journal of the stage dir of root; the error wraps
// fs.ErrNotExist if there is none. A journal is acted on only if it proves
// that a publish wrote it there, since a stage may come from SOURCE (a git
// checkout, a copy): it is a regular file (not a link) whose identity, and
// that of the stage directory, are those it records; and it names only
// files a publish moves (Moved) and the directory it makes for them.
// Anything else fails with errForeign.
func readJournal(root *confined.Root, dir string) (*journal, error) {
	f, err := root.OpenFile(dir+"/"+journalName, os.O_RDONLY|regfile.OpenFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errForeign, display.WithoutPath(err))
	}
	defer f.Close()
	var j journal
	self, err := fileID(f)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errForeign, err)
	}
	if err := json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&j); err != nil {
		return nil, errIncomplete
	}
	id, err := stageID(root.Path(dir))
	if err != nil || self != j.Self || id != j.Stage || j.Self == "" {
		return nil, errForeign
	}
	for _, rel := range slices.Concat(j.Root, j.Old) {
		if !slices.Contains(Moved, rel) {
			return nil, fmt.Errorf("%w (it names %q, which no publish moves)", errForeign, rel)
		}
	}
	for _, rel := range j.Made {
		if rel != WellKnownDir {
			return nil, fmt.Errorf("%w (it names %q, which no publish makes)", errForeign, rel)
		}
	}
	return &j, nil
}

// syncTree syncs every file and directory under dir: after a power cut, a
// renamed file must not turn out empty.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return confined.SyncDir(p)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		return confined.CloseAfter(f, f.Sync())
	})
}

func syncParents(out string, rels []string) error {
	dirs := []string{out}
	for _, rel := range rels {
		if d := filepath.Dir(filepath.Join(out, filepath.FromSlash(rel))); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := confined.SyncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// unwrapLink drops the paths of an *os.LinkError: the caller names the file.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}

// collectFiles appends the files under dir/name, relative to dir.
func collectFiles(dir, name string, files *[]string) error {
	return filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		*files = append(*files, filepath.ToSlash(rel))
		return nil
	})
}

// exchange puts the directory newDir of root at oldDir. If oldDir exists,
// the two are swapped atomically where the system can (renameat2
// RENAME_EXCHANGE), else by two renames (exchangeByRename), and newDir
// then holds the old content.
func exchange(root *confined.Root, newDir, oldDir string) error {
	err := root.Exchange(newDir, root, oldDir)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return exchangeByRename(root, newDir, oldDir)
	case errors.Is(err, fs.ErrNotExist):
		if err := root.Rename(newDir, root, oldDir); err == nil {
			return nil
		}
	}
	return err
}

// exchangeByRename swaps two directories with two renames: for a moment
// oldDir does not exist.
func exchangeByRename(root *confined.Root, newDir, oldDir string) error {
	aside := newDir + ".old"
	if err := root.Rename(oldDir, root, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return root.Rename(newDir, root, oldDir)
		}
		return err
	}
	if err := root.Rename(newDir, root, oldDir); err != nil {
		root.Rename(aside, root, oldDir)
		return err
	}
	return root.Rename(aside, root, newDir)
}
