package confined_test

import (
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestMain puts the temporary directories of the tests on a memory file
// system where there is one (testenv.MemTemp).
func TestMain(m *testing.M) { testenv.Main(m) }
