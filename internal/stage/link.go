package stage

import (
	"io"
	"os"
	"path/filepath"
)

// HardLink stages name as a hard link to src, a file outside the stage,
// or fails if the file system cannot link them: Link copies instead.
func (s *Stage) HardLink(name, src string) error {
	p := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, p); err != nil {
		return err
	}
	s.files = append(s.files, name)
	return nil
}

// Link stages name as a hard link to src, a file outside the stage: a file
// published before is published again without copying its bytes. Where
// the file system cannot link (another device, no links), it copies.
func (s *Stage) Link(name, src string) error {
	p := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, p); err == nil {
		s.files = append(s.files, name)
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := s.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return closeAfter(out, err)
}
