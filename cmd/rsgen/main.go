// Command rsgen publishes a collection as ResourceSync documents.
//
// See README.md, or run "rsgen --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(Main())
}

// Main runs rsgen with the arguments of the process and returns its exit
// code; the tests' scripts run it as the command rsgen.
func Main() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onSignals(sigs, cancel, os.Stderr, os.Exit)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	return code
}
