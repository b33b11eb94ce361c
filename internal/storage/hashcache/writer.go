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
	"path/filepath"
	"time"

	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// countSize is the room kept in the header for the number of entries,
// which a Writer knows only at the end: a varint padded to its longest
// form (a 0x80 byte continues a varint without adding to it), which every
// reader of the format, old ones included, decodes as the same number.
const countSize = binary.MaxVarintLen64

// A Writer writes a new cache file, one entry at a time in ascending order
// of paths, into a temporary file beside the cache (its name is the
// cache's followed by ".tmp-" and a random suffix), which [Writer.Commit]
// renames over the cache. Until Commit returns, the cache file at path is
// the one that was there: a crash leaves it, and the temporary file, behind.
type Writer struct {
	rep     *confined.Replacement
	f       *os.File
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
// one at path when committed. It refuses a path that holds anything but
// a cache (see Check): renaming over it would replace what is not a
// cache. A symbolic link at path keeps working: the cache it leads to is
// replaced.
func Create(path, root string) (*Writer, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	target, err := confined.Resolve(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(target)
	removeStale(filepath.Dir(target), base+".tmp-") // what writers killed before they were done left
	rep, err := confined.Replace(target, base+".tmp-*")
	if err != nil {
		return nil, err
	}
	f := rep.File
	lock(f) // held until the file is renamed or removed: it is in use
	w := &Writer{rep: rep, f: f, bw: bufio.NewWriterSize(f, 64<<10)}
	var head []byte
	head = append(head, magic...)
	head = binary.AppendUvarint(head, Version)
	head = binrec.AppendBytes(head, root)
	w.countAt = int64(len(head))
	head = appendPaddedUvarint(head, 0)
	w.write(head)
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	return w, nil
}

// Check fails if path holds something other than a hash cache of
// rsgen's (of any version, damaged or not), which a build would replace:
// with ErrNotRegular for a directory, a FIFO, a device, and ErrForeign for
// a file that does not begin as a cache does (an empty one included). A
// path where nothing is, is no error; a symbolic link to nothing is
// (confined.ErrDanglingLink).
func Check(path string) error {
	if _, err := confined.Resolve(path); err != nil {
		return err
	}
	f, _, err := regfile.Open(path)
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

// Put writes e as the entry of the file at rel, whose content was read at
// the time read, if the file's times are settled by then (see
// [Stat.SettledBefore]): an entry that is not is left out, as a later
// write could keep its times. The paths of successive calls must ascend
// strictly in byte order (strings.Compare); one that does not is an error
// wrapping ErrOrder, after which the Writer takes nothing more and only
// Abort is left.
func (w *Writer) Put(rel string, e *Entry, read time.Time) error {
	if w.err == nil && w.done {
		w.err = errors.New("hashcache: Put after Commit or Abort")
	}
	if w.err != nil {
		return w.err
	}
	if w.anyPut && rel <= string(w.last) {
		w.err = fmt.Errorf("%w: %q after %q", ErrOrder, rel, w.last)
		return w.err
	}
	w.last, w.anyPut = append(w.last[:0], rel...), true
	if !e.SettledBefore(read) {
		return nil
	}
	w.put(rel, e)
	return w.err
}

func (w *Writer) put(rel string, e *Entry) {
	shared := commonPrefix(string(w.prev), rel)
	b := binary.AppendUvarint(w.buf[:0], uint64(shared))
	b = binrec.AppendBytes(b, rel[shared:])
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

// Commit completes the cache file, syncs it to disk, renames it over the
// cache and syncs the directory. On an error the cache at path is the one
// that was there (or, if only the sync of the directory failed, the new
// one, which a crash may still lose), and the temporary file is removed.
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
	if _, err := w.f.WriteAt(appendPaddedUvarint(nil, w.n), w.countAt); err != nil {
		return err
	}
	// The checksum covers the count, known only now: it is computed over
	// what the file holds, in a second pass of one buffer.
	crc := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(crc, io.NewSectionReader(w.f, 0, w.size), make([]byte, readBuffer)); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(crc.Sum(nil), w.size); err != nil {
		return err
	}
	// The build ran since Create: check again what the rename replaces.
	if err := Check(w.rep.Target); err != nil {
		return err
	}
	if err := w.rep.Commit(); err != nil {
		return err
	}
	w.done = true
	return nil
}

// Abort removes the temporary file. It may be called after Commit, which
// makes it do nothing (defer it).
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.rep.Abort()
}
