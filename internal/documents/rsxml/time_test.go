package rsxml

import (
	"strings"
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"UTC seconds", time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), "2013-01-03T09:00:00Z"},
		{"offset converted to UTC", time.Date(2013, 1, 3, 10, 30, 0, 0, time.FixedZone("", 5400)), "2013-01-03T09:00:00Z"},
		{"fraction without trailing zeros", time.Date(2013, 1, 3, 9, 0, 0, 500_000_000, time.UTC), "2013-01-03T09:00:00.5Z"},
		{"nanoseconds", time.Date(2013, 1, 3, 9, 0, 0, 1, time.UTC), "2013-01-03T09:00:00.000000001Z"},
		{"day change by offset", time.Date(2024, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)), "2023-12-31T23:30:00Z"},
		{"leap day", time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC), "2024-02-29T23:59:59Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FormatTime(tt.in)
			if got != tt.want {
				t.Fatalf("FormatTime = %q, want %q", got, tt.want)
			}
			back, err := ParseTime(got)
			if err != nil || !back.Equal(tt.in) {
				t.Errorf("ParseTime(FormatTime) = %v, %v; want %v", back, err, tt.in)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		// The forms of the W3C Datetime profile.
		{in: "2013", want: utc(2013, 1, 1, 0, 0, 0, 0)},
		{in: "2013-07", want: utc(2013, 7, 1, 0, 0, 0, 0)},
		{in: "2013-07-16", want: utc(2013, 7, 16, 0, 0, 0, 0)},
		{in: "2013-07-16T19:20+01:00", want: utc(2013, 7, 16, 18, 20, 0, 0)},
		{in: "2013-07-16T19:20:30Z", want: utc(2013, 7, 16, 19, 20, 30, 0)},
		{in: "2013-07-16T19:20:30+01:00", want: utc(2013, 7, 16, 18, 20, 30, 0)},
		{in: "2013-07-16T19:20:30-05:30", want: utc(2013, 7, 17, 0, 50, 30, 0)},
		{in: "2013-07-16T19:20:30.45+01:00", want: utc(2013, 7, 16, 18, 20, 30, 450_000_000)},
		{in: "2013-07-16T19:20:30.123456789123Z", want: utc(2013, 7, 16, 19, 20, 30, 123_456_789)},
		{in: "2024-02-29T00:00:00Z", want: utc(2024, 2, 29, 0, 0, 0, 0)},
		// Malformed or out of range.
		{in: "", wantErr: "not a W3C Datetime"},
		{in: "2013-07-16T19:20:30", wantErr: "not a W3C Datetime"}, // no time zone
		{in: "2013-07-16 19:20:30Z", wantErr: "not a W3C Datetime"},
		{in: "2013-7-16", wantErr: "not a W3C Datetime"},
		{in: "2013-07-16T19Z", wantErr: "not a W3C Datetime"},
		{in: "2013-07-16T19:20:30.Z", wantErr: "not a W3C Datetime"},
		{in: "2013-07-16T19:20:30+0100", wantErr: "not a W3C Datetime"},
		{in: "2013-07-16t19:20:30z", wantErr: "not a W3C Datetime"},
		{in: " 2013-07-16", wantErr: "not a W3C Datetime"},
		{in: "2013-13-01", wantErr: "out of range"},
		{in: "2013-00", wantErr: "out of range"},
		{in: "2023-02-29", wantErr: "out of range"},
		{in: "2013-04-31", wantErr: "out of range"},
		{in: "0000-01-01T00:00:00Z", wantErr: "no year 0000"}, // xsd:dateTime (XML Schema 1.0) has none: the schemas refuse it
		{in: "2013-07-16T24:00:00Z", wantErr: "out of range"},
		{in: "2013-07-16T23:60:00Z", wantErr: "out of range"},
		{in: "2013-07-16T23:59:60Z", wantErr: "out of range"},
		{in: "2013-07-16T19:20:30+24:00", wantErr: "offset is out of range"},
		{in: "2013-07-16T19:20:30+01:60", wantErr: "offset is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTime(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTime(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("ParseTime(%q) = %v, want %v in UTC", tt.in, got, tt.want)
			}
		})
	}
}
