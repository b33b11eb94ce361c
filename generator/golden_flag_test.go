package generator

import "flag"

// update rewrites golden files. The golden tests of the core define the
// same flag in golden_test.go: when both are merged, this file goes.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")
