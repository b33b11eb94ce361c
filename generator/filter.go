package generator

// A Filter decides which files of a tree are published (package
// internal/tree applies it).
type Filter struct {
	Include []string `toml:"include"` // doublestar patterns; if any, a file must match one
	Exclude []string `toml:"exclude"` // doublestar patterns; a match is never published
	Hidden  bool     `toml:"hidden"`  // publish names starting with "." too
}

// Limits bound the size of one document (section 7). Both may be lowered
// from the spec's 50,000 entries and 50 MB, never raised.
type Limits struct {
	MaxEntries int   `toml:"max-entries"`
	MaxBytes   int64 `toml:"max-bytes"`
}
