package stage

import (
	"errors"
	"io"
	"os"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// Link stages name as a hard link to the open regular file f, a file
// outside the stage (a package published before, checked by the caller
// through f): to the very file f, whatever its name leads to by now. It
// reports false, having staged nothing, where the system or file systems
// cannot link it: the caller copies from f then.
func (s *Stage) Link(name string, f *os.File) (linked bool, err error) {
	err = s.root.Link(f, s.name+"/"+name)
	if errors.Is(err, errors.ErrUnsupported) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.files = append(s.files, name)
	return true, nil
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
	out, err := s.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return confined.CloseAfter(out, err)
}
