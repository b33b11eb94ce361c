package rsxml

import (
	"strings"
	"testing"
)

// A package is taken within its dump's snapshot (or covers part of its
// interval), and its manifest gives the package's times.
func TestPackageTimes(t *testing.T) {
	t.Parallel()
	dump := MD{At: "2026-11-27T13:02:04Z", Completed: "2026-11-27T13:02:09Z"}
	changes := MD{From: "2026-11-01T00:00:00Z", Until: "2026-11-27T13:02:04Z"}
	for _, tt := range []struct {
		name      string
		dump, pkg MD
		manifest  *MD
		want      string // in the message; "" for none
	}{
		{"the dump's own times", dump, MD{At: dump.At, Completed: dump.At}, &MD{At: dump.At, Completed: dump.At}, ""},
		{"packaged into the next second", dump, MD{At: "2026-11-27T13:02:05Z", Completed: "2026-11-27T13:02:07Z"},
			&MD{At: "2026-11-27T13:02:05Z", Completed: "2026-11-27T13:02:07Z"}, ""},
		{"completed with the dump", dump, MD{At: "2026-11-27T13:02:08Z", Completed: dump.Completed}, nil, ""},
		{"no times", dump, MD{}, nil, ""},
		{"a dump without completed", MD{At: dump.At}, MD{At: "2027-01-01T00:00:00Z"}, nil, ""},
		{"before the dump", dump, MD{At: "2026-11-27T13:02:03Z"}, nil, "the package's at=2026-11-27T13:02:03Z is before the dump's at=2026-11-27T13:02:04Z"},
		{"completed after the dump", dump, MD{At: dump.At, Completed: "2026-11-27T13:02:10Z"}, nil, "the package's completed=2026-11-27T13:02:10Z is after the dump's completed"},
		{"completed before the dump's at", dump, MD{Completed: "2026-11-27T13:00:00Z"}, nil, "is before the dump's at"},
		{"a manifest of another at", dump, MD{At: "2026-11-27T13:02:05Z"}, &MD{At: dump.At}, "its manifest gives at=2026-11-27T13:02:04Z, but the package's entry gives at=2026-11-27T13:02:05Z"},
		{"a manifest without completed", dump, MD{At: dump.At, Completed: dump.At}, &MD{At: dump.At}, "its manifest gives no completed"},
		{"a manifest outside the dump", dump, MD{}, &MD{At: "2026-11-27T13:02:10Z"}, "its manifest's at=2026-11-27T13:02:10Z is after the dump's completed"},
		{"a change package inside", changes, MD{From: "2026-11-02T00:00:00Z", Until: changes.Until}, &MD{From: "2026-11-02T00:00:00Z", Until: changes.Until}, ""},
		{"a change package before", changes, MD{From: "2026-10-31T00:00:00Z", Until: changes.Until}, nil, "the package's from=2026-10-31T00:00:00Z is before the dump's from"},
		{"a change package after", changes, MD{From: changes.From, Until: "2026-11-28T00:00:00Z"}, nil, "the package's until=2026-11-28T00:00:00Z is after the dump's until"},
		{"a change manifest of another interval", changes, MD{From: changes.From, Until: changes.Until}, &MD{From: changes.From, Until: "2026-11-20T00:00:00Z"}, "its manifest gives until=2026-11-20T00:00:00Z"},
		{"not a datetime: reported elsewhere", dump, MD{At: "soon"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := PackageTimes(&tt.dump, &tt.pkg, tt.manifest)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("PackageTimes = %q, want %q", got, tt.want)
			}
		})
	}
}
