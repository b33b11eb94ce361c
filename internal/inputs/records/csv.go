package records

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

// A CSV export has a header row naming its columns: the fieldNames (in any
// order, all but loc optional) and, for links, "link:REL" columns holding
// the href of a link of relation REL, with "link:REL:ATTR" columns for its
// other attributes (link:alternate:type). A row has at most one link of
// each relation; JSON Lines has no such limit.

// ErrHeader reports a CSV header that cannot be read: every row would be bad.
var ErrHeader = errors.New("bad CSV header")

type csvColumn struct {
	field int    // index in fieldNames, or -1 for a link column
	link  int    // index in csvSchema.rels
	attr  string // link attribute ("href" for the link:REL column)
}

type csvSchema struct {
	cols []csvColumn
	rels []string // relations of the link columns, in order of appearance
}

func newCSVSchema(header []string) (*csvSchema, error) {
	s := &csvSchema{}
	var unknown, twice []string
	seen := map[string]bool{}
	hasHref := map[string]bool{}
	for i, name := range header {
		if i == 0 {
			name = strings.TrimPrefix(name, "\uFEFF")
		}
		if seen[name] {
			twice = append(twice, strconv.Quote(name))
			continue
		}
		seen[name] = true
		col := csvColumn{field: fieldByName(name)}
		if col.field < 0 {
			rest, ok := strings.CutPrefix(name, "link:")
			if !ok || rest == "" {
				unknown = append(unknown, strconv.Quote(name))
				s.cols = append(s.cols, col)
				continue
			}
			rel, attr := rest, "href"
			if j := strings.LastIndexByte(rest, ':'); j > 0 {
				if a := rest[j+1:]; a != "rel" && a != "href" && slices.Contains(linkAttrs, a) {
					rel, attr = rest[:j], a
				}
			}
			if attr == "href" {
				hasHref[rel] = true
			}
			col.link = slices.Index(s.rels, rel)
			if col.link < 0 {
				col.link = len(s.rels)
				s.rels = append(s.rels, rel)
			}
			col.attr = attr
		}
		s.cols = append(s.cols, col)
	}
	var missing []string
	for _, rel := range s.rels {
		if !hasHref[rel] {
			missing = append(missing, strconv.Quote("link:"+rel))
		}
	}
	switch {
	case len(unknown) > 0:
		return nil, fmt.Errorf("%w: unknown column%s %s (known: %s, and link:REL, link:REL:ATTR)", ErrHeader,
			units.Plural(len(unknown), "", "s"), strings.Join(unknown, ", "), strings.Join(fieldNames[:], ", "))
	case len(twice) > 0:
		return nil, fmt.Errorf("%w: column%s %s given twice", ErrHeader, units.Plural(len(twice), "", "s"), strings.Join(twice, ", "))
	case len(missing) > 0:
		return nil, fmt.Errorf("%w: attributes of a link without its href column %s", ErrHeader, strings.Join(missing, ", "))
	case !seen["loc"]:
		return nil, fmt.Errorf("%w: no loc column (the first row must name the columns: loc,lastmod,…)", ErrHeader)
	}
	return s, nil
}

func (s *csvSchema) parse(row []string, line int) (Record, error) {
	rec := newRecord(line)
	if len(row) != len(s.cols) {
		return rec, fmt.Errorf("%s, but the header has %s", units.Count(len(row), "field"), units.Count(len(s.cols), "column"))
	}
	var links []rsxml.Link
	var isURL []bool
	if len(s.rels) > 0 {
		links = make([]rsxml.Link, len(s.rels))
		isURL = make([]bool, len(s.rels))
	}
	var first error
	for i, v := range row {
		if !utf8.ValidString(v) {
			return rec, fmt.Errorf("column %d is not valid UTF-8", i+1)
		}
		c := s.cols[i]
		var err error
		if c.field >= 0 {
			err = set(&rec, c.field, v)
		} else if err = setLinkAttr(&links[c.link], &isURL[c.link], c.attr, v); err != nil {
			err = fmt.Errorf("link:%s: %w", s.rels[c.link], err)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return rec, first
	}
	for i := range links {
		l := &links[i]
		if l.Href == "" {
			if l.Type != "" || l.Hash != "" || l.Length != "" || l.Modified != "" || l.Encoding != "" || l.Path != "" || l.Pri != "" || l.Profile != "" {
				return rec, fmt.Errorf("link:%s has attributes but no href", s.rels[i])
			}
			continue
		}
		l.Rel = s.rels[i]
		rec.Links = append(rec.Links, *l)
		rec.LinkURL = append(rec.LinkURL, isURL[i])
	}
	return rec, rec.finish()
}
