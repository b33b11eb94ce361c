package stage

import (
	"errors"
	"io"
	"os"
)

// Link stages name as the open regular file f, a file outside the stage
// (a package published before, checked by the caller through f): a hard
// link to the very file f is, where the system and file systems allow,
// else a copy of its bytes from f's start. It reports whether it linked.
func (s *Stage) Link(name string, f *os.File) (linked bool, err error) {
	err = s.root.Link(f, s.name+"/"+name)
	if err == nil {
		s.files = append(s.files, name)
		return true, nil
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		return false, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	out, err := s.Create(name)
	if err != nil {
		return false, err
	}
	_, err = io.Copy(out, f)
	return false, closeAfter(out, err)
}

// LinkStaged stages name as a hard link to the staged file staged (or a
// copy of it where the file system has no links).
func (s *Stage) LinkStaged(name, staged string) error {
	err := s.root.LinkAt(s.name+"/"+staged, s.root, s.name+"/"+name)
	if err == nil {
		s.files = append(s.files, name)
		return nil
	}
	in, err := s.root.OpenFile(s.name+"/"+staged, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = s.Link(name, in)
	return err
}
