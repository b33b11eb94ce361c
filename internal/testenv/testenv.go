package testenv

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that turns the long tests on.
const LongEnv = "RSGEN_LONG_TESTS"

// Long reports whether the long tests are asked for: $RSGEN_LONG_TESTS is 1
// and the tests do not run with -short.
func Long() bool {
	return os.Getenv(LongEnv) == "1" && !testing.Short()
}

// LongTest skips t, saying why (what makes it long), unless the long tests
// are asked for.
func LongTest(t testing.TB, why string) {
	t.Helper()
	if !Long() {
		t.Skipf("%s: a long test, run with %s=1 (and without -short)", why, LongEnv)
	}
}
