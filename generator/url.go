package generator

import (
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// A BaseURL is where a directory is served: an absolute http or https URL
// whose path ends in a slash. The mapping of paths to URLs is package
// internal/documents/uri's, the one every part of rsgen uses.
type BaseURL struct{ base uri.Base }

// ParseBaseURL checks raw and returns it in the normal form every URL
// under it is written in (see uri.ParseBase).
func ParseBaseURL(raw string) (BaseURL, error) {
	base, err := uri.ParseBase(raw)
	return BaseURL{base}, err
}

func (u BaseURL) String() string { return u.base.String() }

// IsZero reports whether u is the zero BaseURL, which no URL was given for.
func (u BaseURL) IsZero() bool { return u.base.IsZero() }

// HasPath reports whether u has a path below its host's root.
func (u BaseURL) HasPath() bool { return u.base.HasPath() }

// UnmarshalText reads u as ParseBaseURL does; "" is the zero BaseURL, as
// if none were given.
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

// setDir is the directory of the documents of the resource set named set
// ("" for the one set of a build without sets).
func setDir(set string) string {
	if set == "" {
		return docsDir
	}
	return docsDir + "/" + set
}
