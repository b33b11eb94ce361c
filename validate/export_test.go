package validate

// Exported for the tests of package validate_test, which may import the
// generator.
var DocURL = docURL
