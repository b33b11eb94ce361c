// Package mediatype names the media type of a published file: by its
// extension from a fixed table (so that the output does not depend on the
// machine's /etc/mime.types), else by sniffing its first bytes; and it is
// the one checker of a media type given to rsgen or read by validate
// ([Valid], [SchemaValid]).
//
// Types are bare (no parameters): the type attribute of the spec carries
// a media type, and charset parameters are rejected by the official schema.
// That schema rejects more: its pattern [\w-]+/[\w-]+ has no room for the
// dots of vnd. and x. types (.docx is application/vnd.openxmlformats-…),
// nor for underscores. [SchemaValid] tells which types it accepts: the
// writer leaves out any other, since a Destination that validates would
// refuse the whole document for it.
// All functions may be called from several goroutines.
package mediatype

import (
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Octet is the type of bytes of unknown kind.
const Octet = "application/octet-stream"

// byExt maps lower-case extensions (with the dot) to IANA media types.
var byExt = map[string]string{
	// text and markup
	".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml",
	".css": "text/css", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".txt": "text/plain", ".text": "text/plain", ".md": "text/markdown", ".markdown": "text/markdown",
	".rtf": "application/rtf", ".ics": "text/calendar", ".vtt": "text/vtt", ".srt": "application/x-subrip",
	".xml": "application/xml", ".xsl": "application/xslt+xml", ".xslt": "application/xslt+xml", ".xsd": "application/xml",
	".dtd": "application/xml-dtd", ".rss": "application/rss+xml", ".atom": "application/atom+xml",
	".rdf": "application/rdf+xml", ".owl": "application/rdf+xml", ".ttl": "text/turtle", ".n3": "text/n3",
	".nt": "application/n-triples", ".nq": "application/n-quads", ".trig": "application/trig",
	".jsonld": "application/ld+json", ".json": "application/json", ".geojson": "application/geo+json",
	".jsonl": "application/jsonl", ".ndjson": "application/x-ndjson", ".yaml": "application/yaml", ".yml": "application/yaml",
	".toml": "application/toml", ".tex": "application/x-tex", ".bib": "application/x-bibtex", ".ris": "application/x-research-info-systems",
	".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".map": "application/json",
	".webmanifest": "application/manifest+json", ".sgml": "text/sgml", ".tei": "application/tei+xml",
	".mods": "application/mods+xml", ".mets": "application/mets+xml", ".marc": "application/marc", ".mrc": "application/marc",
	// documents
	".pdf": "application/pdf", ".epub": "application/epub+zip", ".ps": "application/postscript", ".eps": "application/postscript",
	".doc": "application/msword", ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls": "application/vnd.ms-excel", ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt": "application/vnd.ms-powerpoint", ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".odt": "application/vnd.oasis.opendocument.text", ".ods": "application/vnd.oasis.opendocument.spreadsheet",
	".odp": "application/vnd.oasis.opendocument.presentation", ".djvu": "image/vnd.djvu",
	// images
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".svg": "image/svg+xml", ".svgz": "image/svg+xml",
	".ico": "image/vnd.microsoft.icon", ".bmp": "image/bmp", ".tif": "image/tiff", ".tiff": "image/tiff",
	".jp2": "image/jp2", ".jpx": "image/jpx", ".j2k": "image/jp2", ".heic": "image/heic", ".heif": "image/heif", ".jxl": "image/jxl",
	// audio and video
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".flac": "audio/flac", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/ogg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".mid": "audio/midi", ".midi": "audio/midi",
	".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".ogv": "video/ogg", ".mov": "video/quicktime",
	".avi": "video/x-msvideo", ".mkv": "video/x-matroska", ".mpg": "video/mpeg", ".mpeg": "video/mpeg",
	// fonts
	".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
	// archives and data
	".zip": "application/zip", ".gz": "application/gzip", ".tgz": "application/gzip", ".bz2": "application/x-bzip2",
	".xz": "application/x-xz", ".zst": "application/zstd", ".7z": "application/x-7z-compressed", ".tar": "application/x-tar",
	".rar": "application/vnd.rar", ".warc": "application/warc", ".arc": "application/x-internet-archive",
	".parquet": "application/vnd.apache.parquet", ".h5": "application/x-hdf5", ".hdf5": "application/x-hdf5",
	".nc": "application/x-netcdf", ".fits": "application/fits", ".sqlite": "application/vnd.sqlite3", ".db": "application/vnd.sqlite3",
	".bin": Octet, ".exe": "application/vnd.microsoft.portable-executable", ".iso": "application/x-iso9660-image",
	".dmg": "application/x-apple-diskimage", ".deb": "application/vnd.debian.binary-package", ".rpm": "application/x-rpm",
	".jar": "application/java-archive", ".apk": "application/vnd.android.package-archive",
}

// compressed are types whose bytes are already compressed: packing them
// with Deflate costs time and saves nothing.
var compressed = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true,
	"image/jp2": true, "image/jpx": true, "image/heic": true, "image/heif": true, "image/jxl": true, "image/vnd.djvu": true,
	"audio/mpeg": true, "audio/flac": true, "audio/ogg": true, "audio/mp4": true, "audio/aac": true,
	"video/mp4": true, "video/webm": true, "video/ogg": true, "video/quicktime": true, "video/x-msvideo": true,
	"video/x-matroska": true, "video/mpeg": true, "font/woff": true, "font/woff2": true,
	"application/zip": true, "application/gzip": true, "application/x-bzip2": true, "application/x-xz": true,
	"application/zstd": true, "application/x-7z-compressed": true, "application/vnd.rar": true,
	"application/epub+zip": true, "application/pdf": true, "application/java-archive": true,
	"application/vnd.android.package-archive": true, "application/vnd.apache.parquet": true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   true,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         true,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": true,
	"application/vnd.oasis.opendocument.text":                                   true, "application/vnd.oasis.opendocument.spreadsheet": true,
	"application/vnd.oasis.opendocument.presentation": true,
}

// ByName returns the media type of a file named name by its extension, or
// "" if the extension is not in the table.
func ByName(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		return ""
	}
	if t, ok := byExt[ext]; ok {
		return t
	}
	return byExt[strings.ToLower(ext)]
}

// Sniff returns the media type of content whose first bytes are head (at
// most 512 are looked at), without parameters. Empty content is Octet.
func Sniff(head []byte) string {
	if len(head) == 0 {
		return Octet
	}
	return Bare(http.DetectContentType(head))
}

// Bare strips parameters and white space from a media type and lowers its case.
func Bare(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// IsCompressed reports whether content of type t is already compressed.
func IsCompressed(t string) bool { return compressed[t] }

// SchemaValid reports whether t is a value the official ResourceSync
// schema accepts in a type attribute: its pattern [\w-]+/[\w-]+, where
// XSD's \w is every character but punctuation, separators and others
// (so "+", "$" and "^" are in, "." and "_" are not), anchored at both ends.
func SchemaValid(t string) bool {
	typ, sub, ok := strings.Cut(t, "/")
	return ok && xsdWordDash(typ) && xsdWordDash(sub)
}

// xsdWordDash reports whether s is one or more of XSD's \w and "-".
func xsdWordDash(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < utf8.RuneSelf {
			// ASCII: Z is the space, C the controls.
			if r != '-' && (r <= ' ' || r == 0x7f || unicode.IsPunct(r)) {
				return false
			}
		} else if unicode.IsPunct(r) || unicode.In(r, unicode.Z, unicode.C) {
			return false
		}
	}
	return true
}

// Valid reports whether t is a bare media type as RFC 6838 names one:
// type/subtype, each a restricted name ([IsName]).
func Valid(t string) bool {
	typ, sub, ok := strings.Cut(t, "/")
	return ok && IsName(typ) && IsName(sub)
}

// IsName reports whether s is a restricted name of RFC 6838: 1 to 127
// letters, digits and !#$&-^_.+, the first a letter or a digit.
func IsName(s string) bool {
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || strings.IndexByte("!#$&-^_.+", c) < 0) {
			return false
		}
	}
	return true
}
