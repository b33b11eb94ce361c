package units

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{in: "50MB", want: 52428800}, // the Sitemaps limit
		{in: "50MiB", want: 52428800},
		{in: "50mb", want: 52428800},
		{in: "1GiB", want: 1 << 30},
		{in: "1 GB", want: 1 << 30},
		{in: "4KiB", want: 4096},
		{in: "4k", want: 4096},
		{in: "2000000", want: 2000000},
		{in: "512B", want: 512},
		{in: "1.5KiB", want: 1536},
		{in: "2TB", want: 2 << 40},
		{in: " 10MB ", want: 10 << 20},
		{in: "", wantErr: "is not a size"},
		{in: "MB", wantErr: "is not a size"},
		{in: "-1MB", wantErr: "is not a size"},
		{in: "1..5MB", wantErr: "is not a size"},
		{in: "10XB", wantErr: `unknown unit "xb"`},
		{in: "10 bytes", wantErr: "unknown unit"},
		{in: "0", wantErr: "out of range"},
		{in: "0.1", wantErr: "out of range"},
		{in: "99999999TB", wantErr: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSize(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{52428800, "50.0 MiB"},
		{1 << 30, "1.0 GiB"},
		{5 << 40, "5.0 TiB"},
		{1 << 60, "1.0 EiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := FormatSize(tt.in); got != tt.want {
				t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{in: "30d", want: 30 * 24 * time.Hour},
		{in: "1.5d", want: 36 * time.Hour},
		{in: "0d", want: 0},
		{in: "36h", want: 36 * time.Hour},
		{in: "90m", want: 90 * time.Minute},
		{in: " 7d ", want: 7 * 24 * time.Hour},
		{in: "", wantErr: true},
		{in: "d", wantErr: true},
		{in: "-1d", wantErr: true},
		{in: "-5h", wantErr: true},
		{in: "thirty days", wantErr: true},
		{in: "30", wantErr: true},
		{in: "200000d", wantErr: true},
		{in: "NaNd", wantErr: true},
		{in: "106750d", want: 106750 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "is not a duration") && !strings.Contains(err.Error(), "is too long") {
					t.Fatalf("ParseDuration(%q) = %v, %v; want an error", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files", -1: "-1 files"} {
		if got := Count(n, "file"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	for thing, want := range map[string]string{"entry": "2 entries", "directory": "2 directories", "day": "2 days", "key": "2 keys"} {
		if got := Count(2, thing); got != want {
			t.Errorf("Count(2, %q) = %q, want %q", thing, got, want)
		}
	}
	if Plural(1, "is", "are") != "is" || Plural(3, "is", "are") != "are" {
		t.Error("Plural picks the wrong word")
	}
}

// FormatDuration renders what ParseDuration reads back to the same value,
// in days when it is whole days.
func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   time.Duration
		want string
	}{
		{30 * 24 * time.Hour, "30d"},
		{36 * time.Hour, "36h0m0s"},
		{90 * time.Minute, "1h30m0s"},
		{0, "0s"},
		{-48 * time.Hour, "-2d"},
	} {
		got := FormatDuration(tt.in)
		if got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.in, got, tt.want)
		}
		if back, err := ParseDuration(got); tt.in >= 0 && (err != nil || back != tt.in) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", got, back, err, tt.in)
		}
	}
}

// A configuration file gives a Size as a string or a whole number, a
// Duration as a string in days or Go's syntax, a List as a string or a
// list of them.
func TestValuesOfAFile(t *testing.T) {
	var v struct {
		Size, Bytes Size
		Keep, Poll  Duration
		One, Two    List
	}
	doc := `size = "50MiB"
bytes = 4096
keep = "30d"
poll = "90s"
one = "**/*.html"
two = ["a/**", "b/**"]`
	if err := toml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	if v.Size != 50<<20 || v.Bytes != 4096 || time.Duration(v.Keep) != 30*24*time.Hour || time.Duration(v.Poll) != 90*time.Second ||
		!slices.Equal(v.One, List{"**/*.html"}) || !slices.Equal(v.Two, List{"a/**", "b/**"}) {
		t.Errorf("decoded %+v", v)
	}
	if v.Keep.String() != "30d" {
		t.Errorf("Keep.String() = %q, want 30d", v.Keep.String())
	}
	if err := toml.Unmarshal([]byte(`keep = "30 days"`), &v); err == nil || !strings.Contains(err.Error(), "is not a duration") {
		t.Errorf("keep = \"30 days\": %v", err)
	}
	if err := toml.Unmarshal([]byte(`size = ""`), &v); err != nil || v.Size != 0 {
		t.Errorf(`size = "": %v, %v`, v.Size, err)
	}
	if err := toml.Unmarshal([]byte(`size = "lots"`), &v); err == nil || !strings.Contains(err.Error(), "is not a size") {
		t.Errorf("size = \"lots\": %v", err)
	}
}
