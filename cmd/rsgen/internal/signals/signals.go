// Package signals catches the signals that stop rsgen from the start of
// the process: its init installs the handler. Go initializes packages in
// the order of their import paths, each after those it imports; this one
// imports only os/signal and sorts before every other package of rsgen
// (cmd/rsgen/internal < generator, internal, main), so it runs before
// their initialization (a few milliseconds, much more on a busy machine),
// during which a SIGTERM would otherwise kill the process without the
// clean stop that main installs.
package signals

import (
	"os"
	"os/signal"
	"syscall"
)

// stopping are the signals that stop rsgen cleanly: Ctrl-C, the
// termination a CI runner or a container sends, and the hang-up of a
// closed terminal or SSH session.
var stopping = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

var caught = make(chan os.Signal, 2)

func init() { signal.Notify(caught, stopping...) }

// Caught returns the channel of the stopping signals received since the
// process started.
func Caught() <-chan os.Signal { return caught }

// Stop stops catching them: each has its default action again.
func Stop() { signal.Stop(caught) }
