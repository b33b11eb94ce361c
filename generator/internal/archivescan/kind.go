package archivescan

import "strings"

// Kind is the format of an archive source.
type Kind int

// The formats of an archive source.
const (
	Tar   Kind = iota + 1 // .tar
	TarGz                 // .tar.gz, .tgz
	Zip                   // .zip
)

// KindOf returns the kind of archive the name of source says, or 0 if it
// names none.
func KindOf(source string) Kind {
	name := strings.ToLower(source)
	switch {
	case strings.HasSuffix(name, ".tar"):
		return Tar
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		return TarGz
	case strings.HasSuffix(name, ".zip"):
		return Zip
	}
	return 0
}
