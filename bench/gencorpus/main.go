// Command gencorpus writes the file trees that bench/lists.sh measures
// rsgen on, with internal/corpus: the same flags give the same bytes.
//
//	go run ./bench/gencorpus -out DIR -files 50000 -min 512 -max 8KiB
//	go run ./bench/gencorpus -out DIR -files 4 -min 256MiB -max 256MiB -per-dir 4
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rsgen/rsgen/internal/corpus"
	"github.com/rsgen/rsgen/internal/text/units"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "gencorpus: error: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "", "`DIR` to create the corpus in (must not exist)")
	s := corpus.Small
	flag.IntVar(&s.Files, "files", s.Files, "number of files")
	minSize := flag.String("min", "512", "smallest file `SIZE` (0 for empty files)")
	maxSize := flag.String("max", "8KiB", "largest file `SIZE`")
	flag.IntVar(&s.PerDir, "per-dir", s.PerDir, "files per directory (directories are two levels deep)")
	flag.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the content")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		return errors.New("usage: gencorpus -out DIR [-files N] [-min SIZE] [-max SIZE] [-per-dir N] [-seed N]")
	}
	var err error
	if s.MinSize, err = parseSize(*minSize); err != nil {
		return err
	}
	if s.MaxSize, err = parseSize(*maxSize); err != nil {
		return err
	}
	_, err = corpus.Write(*out, s)
	return err
}

func parseSize(s string) (int64, error) {
	if s == "0" {
		return 0, nil
	}
	return units.ParseSize(s)
}
