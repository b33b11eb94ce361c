package archivescan

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/rsgen/rsgen/zipdump"
)

// Members reads the bytes of the published members of an archive again,
// for a Resource Dump, without unpacking it: a zip member is opened on
// its own (zip.File.Open), by the index the scan noted, and several may
// be read at once; a tar is a stream, read once more from its start, and
// its members must be opened in the order of the archive.
//
// The archive may have been replaced since it was scanned: a member that
// is no longer at its index, or no longer a regular file of the length
// it had, is ErrChanged; the dump hashes every byte it copies, which
// finds the rest.
type Members struct {
	a    *Archive
	zr   *zip.ReadCloser
	tr   *tarStream // a tar: the member at index next comes next
	next int
	err  error // why no member can be read any more: the stream ended or broke
}

// OpenMembers opens the archive for reading its members again.
func (a *Archive) OpenMembers() (*Members, error) {
	m := &Members{a: a}
	var err error
	if a.Kind == Zip {
		if m.zr, err = zip.OpenReader(a.Path); err != nil {
			return nil, fmt.Errorf("source %s: %w", a.Path, err)
		}
	} else if m.tr, err = openTar(a); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Members) Index(name string) (int, bool) { return m.a.Index(name) }

// Sequential reports whether the members must be opened in the order of
// the archive (zipdump.Options.Sequential).
func (m *Members) Sequential() bool { return m.tr != nil }

func (m *Members) Close() {
	if m.zr != nil {
		m.zr.Close()
	} else {
		m.tr.close()
	}
}

// Open returns the bytes of the member published as it.Name. A zip
// member's reader checks its CRC-32 at its end.
func (m *Members) Open(it *zipdump.Item) (io.ReadCloser, error) {
	index, ok := m.a.members[it.Name]
	if !ok {
		return nil, fmt.Errorf("%s is not a published member of %s", it.Name, m.a.Path)
	}
	if m.zr != nil {
		if index >= len(m.zr.File) {
			return nil, fmt.Errorf("%w: the archive has fewer members since it was read", zipdump.ErrChanged)
		}
		f := m.zr.File[index]
		if err := sameMember(f.Name, f.Mode(), int64(f.UncompressedSize64), it); err != nil {
			return nil, err
		}
		return openZipMember(f)
	}
	if index < m.next {
		return nil, fmt.Errorf("member %d of %s asked for after member %d: a tar can only be read in its order", index, m.a.Path, m.next-1)
	}
	for m.err == nil {
		hdr, err := m.tr.tr.Next()
		switch {
		case errors.Is(err, io.EOF):
			m.err = fmt.Errorf("%w: the archive ends before it now", zipdump.ErrChanged)
			continue
		case err != nil:
			m.err = fmt.Errorf("reading the archive %s: %w", m.a.Path, err)
			continue
		}
		i := m.next
		m.next++
		if i == index {
			if err := sameMember(hdr.Name, tarMode(hdr.Typeflag), hdr.Size, it); err != nil {
				return nil, err
			}
			return io.NopCloser(m.tr.tr), nil
		}
	}
	return nil, m.err
}

// sameMember checks that a member is still the one published as it.
func sameMember(raw string, mode fs.FileMode, size int64, it *zipdump.Item) error {
	name, err := memberName(raw)
	switch {
	case err != nil || name != it.Name:
		return fmt.Errorf("%w: the archive was replaced since it was read (another member is where it was)", zipdump.ErrChanged)
	case !mode.IsRegular():
		return fmt.Errorf("%w: the archive was replaced since it was read (the member is no longer a file)", zipdump.ErrChanged)
	case size != it.Size:
		return fmt.Errorf("%w: %d bytes now, %d when hashed", zipdump.ErrChanged, size, it.Size)
	}
	return nil
}
