// Command rsgen publishes a collection as ResourceSync documents.
//
// See README.md, or run "rsgen --help".
package main

import (
	"context"
	"os"

	"github.com/rsgen/rsgen/cmd/rsgen/internal/signals"
)

func main() {
	os.Exit(Main())
}

// Main runs rsgen with the arguments of the process and returns its exit
// code; the tests' scripts run it as the command rsgen. The signals that
// stop it are caught from the start of the process (package signals).
func Main() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go onSignals(signals.Caught(), cancel, os.Stderr, os.Exit)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	signals.Stop()
	return code
}
