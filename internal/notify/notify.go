package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrOtherSite is returned by Run when the state file was written for
// another site: comparing with it would notify every document as deleted
// and created again.
var ErrOtherSite = errors.New("the state file is of another site")

// Options tune Run.
type Options struct {
	State string    // path of the state file; "" keeps none
	Since time.Time // if not zero, notify the changes after it, whatever the state says
	Hub   *Hub      // how payloads are posted; the zero Hub if nil
	// HubURL, if set, is where payloads are posted instead of the hub the
	// Capability List names (which the Link header still names).
	HubURL string
	// DryRun plans and renders the payloads but sends nothing and keeps
	// the state as it is.
	DryRun bool
	// Sent, if set, is told about each payload once the hub took it (or,
	// in a dry run, instead of sending it).
	Sent func(ch Channel, capability string, entries int, payload []byte)
}

// Result counts what Run notified.
type Result struct {
	Changes, Framework int // entries
	Payloads           int // requests the hubs accepted
}

// Run reads the build published in dir, sends the change notifications
// and then the framework notifications it has not sent yet to the hubs
// its Capability List advertises, and, once every payload was taken,
// writes the state file. On any failure the state file is left as it
// was, so that the next run sends the same notifications again (a
// Destination may so see one twice, never miss one).
func Run(ctx context.Context, dir string, opts Options) (Result, error) {
	var res Result
	site, err := ReadSite(ctx, dir)
	if err != nil {
		return res, err
	}
	var st *State
	if opts.State != "" {
		if st, err = LoadState(opts.State); err != nil {
			return res, err
		}
		// A state that cannot be written would have every notification
		// sent again next time: find out before sending any.
		if dir := filepath.Dir(opts.State); !opts.DryRun {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return res, fmt.Errorf("writing %s: the directory %s does not exist", opts.State, dir)
			}
		}
	}
	if st != nil && st.CapabilityList != site.CapabilityList {
		return res, fmt.Errorf("%s: %w: it is of the site whose Capability List is %s, not %s", opts.State, ErrOtherSite, st.CapabilityList, site.CapabilityList)
	}
	n := Plan(site, st, opts.Since)
	hub := opts.Hub
	if hub == nil {
		hub = &Hub{}
	}
	send := func(ch *Channel, capability string, entries int, payloads [][]byte) error {
		if ch == nil {
			return nil
		}
		for _, p := range payloads {
			if !opts.DryRun {
				if err := hub.publish(ctx, *ch, opts.HubURL, p); err != nil {
					return err
				}
				res.Payloads++
			}
			if opts.Sent != nil {
				opts.Sent(*ch, capability, entries, p)
			}
		}
		return nil
	}
	if site.Change != nil {
		res.Changes = len(n.Changes)
	}
	if err := send(site.Change, CapChangeNotification, len(n.Changes), Payloads(CapChangeNotification, site.CapabilityList, n.Changes)); err != nil {
		return res, err
	}
	if site.Framework != nil {
		res.Framework = len(n.Framework)
	}
	if err := send(site.Framework, CapFrameworkNotification, len(n.Framework), Payloads(CapFrameworkNotification, site.CapabilityList, n.Framework)); err != nil {
		return res, err
	}
	if opts.State != "" && !opts.DryRun {
		if err := NewState(site).Save(opts.State); err != nil {
			return res, err
		}
	}
	return res, nil
}
