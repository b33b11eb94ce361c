package archives

import "github.com/rsgen/rsgen/generator/internal/docs"

// An archived document of the previous build, to publish again under its
// name.
type archived = docs.Archived
