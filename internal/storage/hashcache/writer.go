package hashcache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// countSize is the room kept in the header for the number of entries,
// known only at the end: a varint padded with 0x80 bytes, which continue a
// varint without adding to it, so that every reader decodes it.
const countSize = binary.MaxVarintLen64

// A Writer writes a new cache file, one entry at a time in ascending order
// of paths, into a temporary file beside the cache, which [Writer.Commit]
// renames over it: a crash leaves the old cache.
type Writer struct {
	rep     *confined.Replacement
	bw      *bufio.Writer
	countAt int64  // offset of the padded count
	size    int64  // bytes written
	n       uint64 // entries written
	last    []byte // the last path Put
	anyPut  bool
	prev    []byte // the last path written
	buf     []byte
	err     error // sticky: Put fails and Commit refuses after it
	done    bool  // committed or aborted
}

// Create starts a new cache for the source directory root, to replace the
// one at path when committed, found by confined.Locate: no link inside the
// untrusted directories (SOURCE, the output) is followed. It refuses a
// path that holds anything but a cache (Check).
func Create(path, root string, untrusted ...string) (*Writer, error) {
	dir, name, err := confined.Locate(path, untrusted...)
	if err != nil {
		return nil, err
	}
	rep, err := confined.ReplaceIn(dir, name, pathpkg.Base(name)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := check(rep.Dir, rep.Name); err != nil {
		rep.Abort()
		return nil, err
	}
	confined.TryLock(rep.File)             // held until the file is renamed or removed: it is in use
	removeStale(rep.Dir, rep.Name+".tmp-") // what writers killed before they were done left
	head := binrec.AppendBytes(binary.AppendUvarint([]byte(magic), Version), root)
	w := &Writer{rep: rep, bw: bufio.NewWriterSize(rep.File, 64<<10), countAt: int64(len(head))}
	w.write(appendPaddedUvarint(head, 0)) // into the buffer: it cannot fail
	return w, nil
}

// removeStale removes the temporary files in root named prefix*, each as
// large as a cache, of killed writers: those no running writer holds
// locked.
func removeStale(root *confined.Root, prefix string) {
	dir := pathpkg.Dir(prefix)
	d, err := root.OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return
	}
	entries, _ := d.ReadDir(-1)
	d.Close()
	for _, e := range entries {
		name := pathpkg.Join(dir, e.Name())
		if !strings.HasPrefix(name, prefix) || !e.Type().IsRegular() {
			continue
		}
		if f, err := root.OpenFile(name, regfile.OpenFlags, 0); err == nil {
			if ok, _ := confined.TryLock(f); ok {
				root.Remove(name)
			}
			f.Close()
		}
	}
}

// Check fails if path, found by confined.Locate, holds something other
// than a hash cache of rsgen's (of any version, damaged or not):
// ErrNotRegular, ErrForeign, confined.ErrDanglingLink, or
// confined.ErrSymlink for a link inside an untrusted directory. Nothing
// there is no error.
func Check(path string, untrusted ...string) error {
	root, name, err := confined.Locate(path, untrusted...)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer root.Close()
	return check(root, name)
}

func check(root *confined.Root, name string) error {
	f, _, err := root.OpenRegular(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, regfile.ErrNotRegular):
		return ErrNotRegular
	case err != nil:
		return err
	}
	defer f.Close()
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != magic {
		return ErrForeign
	}
	return nil
}

func appendPaddedUvarint(b []byte, v uint64) []byte {
	for range countSize - 1 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// Put writes e as the entry of the file at rel, read at the time read, if
// its times are settled by then (settledBefore). Paths must ascend
// strictly in byte order; one that does not is an error wrapping errOrder,
// after which only Abort is left.
func (w *Writer) Put(rel string, e *Entry, read time.Time) error {
	if w.err == nil && w.done {
		w.err = errors.New("hashcache: Put after Commit or Abort")
	}
	if w.err != nil {
		return w.err
	}
	if w.anyPut && rel <= string(w.last) {
		w.err = fmt.Errorf("%w: %q after %q", errOrder, rel, w.last)
		return w.err
	}
	w.last, w.anyPut = append(w.last[:0], rel...), true
	if !e.settledBefore(read) {
		return nil
	}
	w.put(rel, e)
	return w.err
}

func (w *Writer) put(rel string, e *Entry) {
	b := binrec.AppendShared(w.buf[:0], string(w.prev), rel)
	b = binary.AppendVarint(b, e.Size)
	b = binary.AppendVarint(b, e.Mtime)
	b = binary.AppendVarint(b, e.Ctime)
	b = binary.AppendUvarint(b, e.Ino)
	b = binary.AppendUvarint(b, e.Dev)
	b = append(b, e.algs)
	b = append(b, e.sums...)
	b = binrec.AppendBytes(b, e.Type)
	w.buf = b
	w.write(b)
	w.prev = append(w.prev[:0], rel...)
	w.n++
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(b)
	w.size += int64(n)
	if err != nil {
		w.err = err
	}
}

// Commit completes the cache file and renames it over the cache
// (confined.Replacement.Commit). On an error the temporary file is removed.
func (w *Writer) Commit() (err error) {
	if w.err == nil && w.done {
		w.err = errors.New("hashcache: Commit after Commit or Abort")
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if _, err := w.rep.File.WriteAt(appendPaddedUvarint(nil, w.n), w.countAt); err != nil {
		return err
	}
	// The checksum covers the count, known only now: a second pass.
	crc := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(crc, io.NewSectionReader(w.rep.File, 0, w.size), make([]byte, readBuffer)); err != nil {
		return err
	}
	if _, err := w.rep.File.WriteAt(crc.Sum(nil), w.size); err != nil {
		return err
	}
	// The build ran since Create: check again what the rename replaces.
	if err := check(w.rep.Dir, w.rep.Name); err != nil {
		return err
	}
	if err := w.rep.Commit(); err != nil {
		return err
	}
	w.done = true
	return nil
}

// Abort removes the temporary file; after Commit it does nothing.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.rep.Abort()
}
