// Package extsort sorts records by a byte-string key in bounded memory.
//
// A [Sorter] gathers records (a key and a payload, both copied) in a chunk
// of at most a given number of bytes. A full chunk is written in key order
// to a file of its own (binrec.File), a run; [Sorter.Iter] merges the runs
// and the last chunk, still in memory, into one pass in key order, and may
// be called again for another pass. Records with equal keys come out in
// the order they were added; records that fit in a chunk never touch the
// disk.
//
// A chunk's memory grows in blocks of 1 MiB, its records and its index
// alike, and is never copied: the copies of one growing slice were the
// peaks of the heap. The index is sorted a part (a block) at a time, the
// parts merged. Keys are compared as byte strings; the sorts and the
// merge of the parts first compare eight bytes past the prefix all keys of
// the chunk share, held in the index, so that most comparisons touch no
// record at all: sorted URLs share long prefixes.
//
// A Sorter and its Iters are not safe for concurrent use.
package extsort
