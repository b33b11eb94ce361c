package validate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/rsgen/rsgen/internal/text/units"
)

// Report is the outcome of a validation.
type Report struct {
	Documents   []string       `json:"documents"` // the documents checked, in the order they were read
	Findings    []Finding      `json:"findings"`  // sorted by document, line, rule
	Errors      int            `json:"errors"`    // error findings, those left out of Findings included
	Warnings    int            `json:"warnings"`  // warning findings, likewise
	ByRule      map[string]int `json:"by_rule"`   // findings per rule, likewise
	Audited     int            `json:"resources_audited,omitempty"`
	NotFollowed int            `json:"links_not_followed,omitempty"` // links to other sites (see Options.CrossSite)
}

// Valid reports whether the report has no error and, if strict, no warning.
func (r *Report) Valid(strict bool) bool {
	return r.Errors == 0 && (!strict || r.Warnings == 0)
}

// Merge appends the documents and findings of o to r.
func (r *Report) Merge(o *Report) {
	r.Documents = append(r.Documents, o.Documents...)
	r.Findings = append(r.Findings, o.Findings...)
	r.Errors += o.Errors
	r.Warnings += o.Warnings
	if r.ByRule == nil {
		r.ByRule = map[string]int{}
	}
	for k, n := range o.ByRule {
		r.ByRule[k] += n
	}
	r.Audited += o.Audited
	r.NotFollowed += o.NotFollowed
}

// WriteJSON writes r as one JSON object, as docs/VALIDATE.md describes it:
// valid and strict, then the fields of the Report.
func (r *Report) WriteJSON(w io.Writer, strict bool) error {
	out := *r
	out.Documents, out.Findings = append([]string{}, r.Documents...), append([]Finding{}, r.Findings...) // [], not null
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Valid  bool `json:"valid"`
		Strict bool `json:"strict"`
		*Report
	}{r.Valid(strict), strict, &out})
}

// Summary is the last line of a report in text: the verdict and counts.
func (r *Report) Summary(strict bool) string {
	verdict := map[bool]string{true: "valid", false: "NOT valid"}[r.Valid(strict)]
	s := fmt.Sprintf("%s: %s, %s, %s", verdict, units.Count(len(r.Documents), "document"), units.Count(r.Errors, "error"), units.Count(r.Warnings, "warning"))
	if strict && r.Errors == 0 && r.Warnings > 0 {
		s += " (--strict)"
	}
	if r.Audited > 0 {
		s += ", " + units.Count(r.Audited, "resource") + " audited"
	}
	if r.NotFollowed > 0 {
		s += ", " + units.Count(r.NotFollowed, "link") + " to other sites not followed"
	}
	return s
}

// MaxPerRule is how many findings of one rule one document reports; the
// rest are counted, and summed up in one more finding.
const MaxPerRule = 10

// sink collects findings; it may be called from several goroutines.
type sink struct {
	mu       sync.Mutex
	findings []Finding
	counts   map[sinkKey]int
	byRule   map[string]int
	errors   int
	warnings int
}

type sinkKey struct {
	doc, rule string
	sev       Severity
}

func newSink() *sink { return &sink{counts: map[sinkKey]int{}, byRule: map[string]int{}} }

func (s *sink) add(doc string, line int, rule, format string, args ...any) {
	s.addAs("", doc, line, rule, format, args...)
}

// addAs records a finding of rule in doc of severity sev ("": the rule's).
func (s *sink) addAs(sev Severity, doc string, line int, rule, format string, args ...any) {
	r, ok := ruleIndex[rule]
	if !ok {
		panic("validate: unknown rule " + rule)
	}
	sev = cmp.Or(sev, r.Severity)
	s.mu.Lock()
	defer s.mu.Unlock()
	if sev == Error {
		s.errors++
	} else {
		s.warnings++
	}
	s.byRule[rule]++
	k := sinkKey{doc, rule, sev}
	s.counts[k]++
	if s.counts[k] > MaxPerRule {
		return
	}
	s.findings = append(s.findings, Finding{Document: doc, Line: line, Rule: rule, Section: r.Section, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// merge adds the findings of o, at most MaxPerRule of each rule and doc.
func (s *sink) merge(o *sink) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	room := make(map[sinkKey]int, len(o.counts))
	for k, n := range o.counts {
		room[k] = max(0, MaxPerRule-s.counts[k])
		s.counts[k] += n
	}
	for _, f := range o.findings {
		if k := (sinkKey{f.Document, f.Rule, f.Severity}); room[k] > 0 {
			room[k]--
			s.findings = append(s.findings, f)
		}
	}
	for r, n := range o.byRule {
		s.byRule[r] += n
	}
	s.errors += o.errors
	s.warnings += o.warnings
}

// report returns the findings sorted, with a summary for each rule whose
// findings were cut at MaxPerRule.
func (s *sink) report() *Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep := &Report{Findings: slices.Clone(s.findings), Errors: s.errors, Warnings: s.warnings, ByRule: maps.Clone(s.byRule)}
	for k, n := range s.counts {
		if n > MaxPerRule {
			r := ruleIndex[k.rule]
			rep.Findings = append(rep.Findings, Finding{Document: k.doc, Rule: k.rule, Section: r.Section, Severity: k.sev,
				Message: fmt.Sprintf("… and %d more findings of this rule in this document", n-MaxPerRule)})
		}
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Document, b.Document), cmp.Compare(lineKey(a.Line), lineKey(b.Line)),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	return rep
}

// lineKey sorts findings without a line after those with one.
func lineKey(l int) int {
	if l == 0 {
		return 1 << 30
	}
	return l
}
