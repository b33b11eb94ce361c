package stage

import (
	"errors"
	"os"
)

// Link stages name as a hard link to the open regular file f, outside the
// stage (a package published before): to the very file the caller checked,
// whatever its name leads to by now. It reports false, having staged
// nothing, where the system cannot link it: the caller copies from f then.
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

// LinkStaged stages name as a hard link to the staged file staged, or a
// copy of it where the file system has no links.
func (s *Stage) LinkStaged(name, staged string) error {
	src, dst := s.name+"/"+staged, s.name+"/"+name
	if err := s.root.LinkAt(src, s.root, dst); err != nil {
		if err := copyFile(s.root, src, dst); err != nil {
			return err
		}
	}
	s.files = append(s.files, name)
	return nil
}
