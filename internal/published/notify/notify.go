package notify

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// ErrOtherSite reports a state file of another site, with which every
// document would be notified as deleted and created again.
var ErrOtherSite = errors.New("the state file is of another site")

// Options tune Run.
type Options struct {
	State  string    // path of the state file; "" keeps none
	Since  time.Time // if not zero, notify the changes after it, whatever the state says
	Hub    *Hub      // how payloads are posted; the zero Hub if nil
	HubURL string    // if set, where payloads are posted instead of the hub the Capability List (and the Link header) names
	DryRun bool      // render the payloads but send nothing and keep the state as it is
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
// of each Capability List, and, once every payload was taken, writes the
// state file. On any failure the state file is left as it was: a
// Destination may see a notification twice, never miss one.
func Run(ctx context.Context, dir string, opts Options) (Result, error) {
	var res Result
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return res, fmt.Errorf("%s: %w", dir, ErrNotDir)
	}
	sets, err := previous.Sets(ctx, dir, previous.Options{})
	if err != nil {
		return res, err
	}
	var st *State
	if opts.State != "" {
		if st, err = loadState(opts.State); err != nil {
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
	if opts.Hub == nil {
		opts.Hub = &Hub{}
	}
	var next *State
	if len(sets) == 0 || len(sets) == 1 && sets[0] == "" { // a build without sets
		next, err = notifyOne(ctx, dir, st, opts, &res)
	} else {
		next, err = notifySets(ctx, dir, sets, st, opts, &res)
	}
	if err == nil && opts.State != "" && !opts.DryRun {
		err = next.Save(opts.State)
	}
	return res, err
}

// notifyOne notifies the build without sets in dir since the state st (nil
// for none), and returns the state to save.
func notifyOne(ctx context.Context, dir string, st *State, opts Options, res *Result) (*State, error) {
	site, err := readSite(ctx, dir, "")
	if err != nil {
		return nil, err
	}
	if st != nil && st.CapabilityList != site.CapabilityList {
		other := st.CapabilityList
		if other == "" {
			other = "none (it is of the resource sets " + strings.Join(slices.Sorted(maps.Keys(st.Sets)), ", ") + ")"
		}
		return nil, fmt.Errorf("%s: %w: it is of the site whose Capability List is %s, not %s", opts.State, ErrOtherSite, other, site.CapabilityList)
	}
	return newState(site), notifySite(ctx, site, st, opts, res)
}

// notifySets notifies each resource set of the build in dir. Every set is
// read, and its state checked, before anything is sent: a failure after
// some sets' notifications would send them again at every run.
func notifySets(ctx context.Context, dir string, sets []string, st *State, opts Options, res *Result) (*State, error) {
	if st != nil && st.Sets == nil { // then it has a Capability List (loadState)
		return nil, fmt.Errorf("%s: %w: it is of the site whose Capability List is %s, not of resource sets", opts.State, ErrOtherSite, st.CapabilityList)
	}
	type setSite struct {
		name string
		site *Site
		prev *State
	}
	var pending []setSite
	for _, name := range sets {
		site, err := readSite(ctx, dir, name)
		if errors.Is(err, ErrNoChannel) {
			continue // this set advertises no channel
		}
		if err != nil {
			return nil, err
		}
		var prev *State
		if st != nil {
			prev = st.Sets[name]
		}
		if prev != nil && prev.CapabilityList != site.CapabilityList {
			return nil, fmt.Errorf("%s: %w: its set %q is of the Capability List %s, not %s", opts.State, ErrOtherSite, name, prev.CapabilityList, site.CapabilityList)
		}
		pending = append(pending, setSite{name, site, prev})
	}
	if len(pending) == 0 {
		return nil, fmt.Errorf("%s: no resource set's Capability List: %w", dir, ErrNoChannel)
	}
	next := &State{Version: stateVersion, Sets: map[string]*State{}}
	for _, s := range pending {
		if err := notifySite(ctx, s.site, s.prev, opts, res); err != nil {
			return nil, err
		}
		next.Sets[s.name] = newState(s.site)
	}
	if st != nil {
		if err := notifyRemoved(ctx, st, next, pending[0].site.At, opts, res); err != nil {
			return nil, err
		}
	}
	return next, nil
}

// notifyRemoved tells, on the framework channel each had, that the
// documents of the sets of st that next no longer holds are deleted, at
// the time at; but the Source Description, still published, whose change
// the remaining sets' channels carry.
func notifyRemoved(ctx context.Context, st, next *State, at string, opts Options, res *Result) error {
	for _, name := range slices.Sorted(maps.Keys(st.Sets)) {
		old := st.Sets[name]
		if _, ok := next.Sets[name]; ok || old.FrameworkTopic == "" || old.Hub == "" {
			continue
		}
		gone := &Site{CapabilityList: old.CapabilityList, Framework: &Channel{Topic: old.FrameworkTopic, Hub: old.Hub}, At: at}
		left := *old
		left.Documents = maps.Clone(old.Documents)
		for u, d := range left.Documents {
			if d.Capability == rsxml.CapDescription {
				delete(left.Documents, u)
			}
		}
		if err := notifySite(ctx, gone, &left, opts, res); err != nil {
			return err
		}
	}
	return nil
}

// notifySite sends the notifications of site since st on each channel it
// advertises, the changes first.
func notifySite(ctx context.Context, site *Site, st *State, opts Options, res *Result) error {
	n := plan(site, st, opts.Since)
	for _, c := range []struct {
		ch         *Channel
		capability string
		entries    []rsxml.Entry
		count      *int
	}{
		{site.Change, rsxml.CapChangeListNotification, n.Changes, &res.Changes},
		{site.Framework, rsxml.CapFrameworkNotification, n.Framework, &res.Framework},
	} {
		if c.ch == nil {
			continue
		}
		*c.count += len(c.entries)
		for _, p := range payloads(c.capability, site.CapabilityList, c.entries, listwriter.Limits{}) {
			if !opts.DryRun {
				if err := opts.Hub.Publish(ctx, *c.ch, opts.HubURL, p); err != nil {
					return err
				}
				res.Payloads++
			}
			if opts.Sent != nil {
				opts.Sent(*c.ch, c.capability, len(c.entries), p)
			}
		}
	}
	return nil
}
