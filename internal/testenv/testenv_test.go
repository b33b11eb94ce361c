package testenv

import "testing"

func TestLong(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{"", false},
		{"0", false},
		{"yes", false},
		{"1", !testing.Short()},
	} {
		t.Setenv(LongEnv, tt.value)
		if got := Long(); got != tt.want {
			t.Errorf("%s=%q: Long() = %v, want %v", LongEnv, tt.value, got, tt.want)
		}
	}
}
