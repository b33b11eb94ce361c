package generator

import "github.com/rsgen/rsgen/internal/uri"

// A BaseURL is where a directory is served: an absolute http or https URL
// whose path ends in a slash. The mapping of paths to URLs is package
// internal/uri's, the one every part of rsgen uses.
type BaseURL = uri.Base

// ParseBaseURL checks raw and returns it in the normal form every URL
// under it is written in (see uri.ParseBase).
func ParseBaseURL(raw string) (BaseURL, error) { return uri.ParseBase(raw) }

// maxLocLength is the longest <loc> the Sitemap schema accepts.
const maxLocLength = uri.MaxLocLength

// errLocTooLong reports a file whose URL would pass maxLocLength.
var errLocTooLong = uri.ErrLocTooLong
