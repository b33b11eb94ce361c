package generator

import (
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// A BaseURL is where a directory is served: an absolute http or https URL
// whose path ends in a slash (package internal/documents/uri).
type BaseURL struct{ base uri.Base }

// ParseBaseURL checks raw and returns it in normal form (uri.ParseBase).
func ParseBaseURL(raw string) (BaseURL, error) {
	base, err := uri.ParseBase(raw)
	return BaseURL{base}, err
}

func (u BaseURL) String() string { return u.base.String() }

func (u BaseURL) IsZero() bool { return u.base.IsZero() }

// HasPath reports whether u has a path below its host's root.
func (u BaseURL) HasPath() bool { return u.base.HasPath() }

// UnmarshalText reads u as ParseBaseURL does; "" is the zero BaseURL.
func (u *BaseURL) UnmarshalText(b []byte) (err error) {
	if len(b) == 0 {
		*u = BaseURL{}
		return nil
	}
	*u, err = ParseBaseURL(string(b))
	return err
}

// Names rsgen owns in the output directory.
const (
	docsDir      = stage.DocsDir      // every document but the Source Description; those of a set in DocsDir/<set>
	wellKnownDir = stage.WellKnownDir // RFC 8615
	stagePrefix  = stage.Prefix
)

func setDir(set string) string {
	if set == "" {
		return docsDir
	}
	return docsDir + "/" + set
}
