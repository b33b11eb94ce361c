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
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onSignals(sigs, cancel, os.Stderr, os.Exit)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}
