package validate

// Exported for the tests of package validate_test, which may import the
// generator.
var DocURL = docURL

// PartsReadAgain counts the Resource List indexes whose parts were read
// again to find a resource two of them list.
var PartsReadAgain = &partsReadAgain
