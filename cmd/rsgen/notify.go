package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/published/notify"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
)

const notifyExitCodes = `   0  every notification was taken by its hub (or there was none to send)
   1  failure: the output directory or the state file could not be read or
      written, or the Capability List advertises no channel
   2  usage error: a flag or argument is wrong
   4  a hub did not take a notification: unreachable, timed out, or it
      answered with an error status after every attempt; the state file
      is unchanged, so that running again sends the same notifications`

func notifyCommand() *cli.Command {
	return withHelp(&cli.Command{
		Name:      "notify",
		Usage:     "send the notifications of the last build to its WebSub hub",
		ArgsUsage: "DIR",
		Description: `Reads the build published in DIR (the --out of rsgen build --hub) and posts
to the hub:
  change notifications     the Change List entries newer than the last
                           run (--state), or than --since; on a first
                           run, the changes of the last build
  framework notifications  the documents created, updated or deleted
                           since the last run; on a first run, every one
Each payload is an HTTP POST of a <urlset> document (application/xml) with
the header Link: <topic>; rel="self", <hub>; rel="hub" (ResourceSync Change
Notification and Framework Notification 1.0.1, over WebSub). Failed requests
are tried again with a growing wait. The state file is written only when
every payload was taken.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagState, EnvVars: []string{envState}, Usage: "`FILE` that remembers what was notified, read and then rewritten (keep it between runs, in the CI cache say)"},
			&cli.StringFlag{Name: flagSince, Usage: "notify the changes after `TIME` (RFC 3339), whatever the state file says"},
			&cli.StringFlag{Name: flagHub, Usage: "post to this hub `URL` rather than the one the Capability List names"},
			&cli.DurationFlag{Name: flagTimeout, Value: 30 * time.Second, Usage: "give up on one request after `DURATION`"},
			&cli.IntFlag{Name: flagRetries, Value: notify.DefaultAttempts - 1, Usage: "try a failed request again `N` more times, waiting 0.5s, 1s, 2s… between"},
			&cli.DurationFlag{Name: flagMaxTime, Value: 5 * time.Minute, Usage: "give up on the whole run after `DURATION`"},
			&cli.BoolFlag{Name: flagDryRun, Usage: "print the payloads on stdout instead of sending them; the state file is not written"},
			&cli.BoolFlag{Name: flagQuiet, Aliases: []string{"q"}, Usage: "print only errors"},
		},
		Action: runNotify,
	}, notifyExitCodes,
		"# After the deploy of a build made with --hub, keeping the state in the CI cache\n"+
			"rsgen notify --state .rsgen-notify.json public",
		"# See what would be sent, sending nothing\n"+
			"rsgen notify --dry-run --since 2026-01-01T00:00:00Z public",
	)
}

func runNotify(c *cli.Context) error {
	dir, err := oneArg(c)
	if err != nil {
		return err
	}
	opts := notify.Options{State: c.String(flagState), DryRun: c.Bool(flagDryRun)}
	if s := c.String(flagSince); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return usageErr("for example --since 2026-01-02T15:04:05Z", "--since %q is not an RFC 3339 time", s)
		}
		opts.Since = t
	}
	if err := cmp.Or(positiveDuration(c, flagTimeout, "30s"), positiveDuration(c, flagMaxTime, "5m")); err != nil {
		return err
	}
	if retries := c.Int(flagRetries); retries < 0 || retries > 20 {
		return usageErr("", "--retries %d: give a number from 0 to 20", retries)
	}
	opts.HubURL = c.String(flagHub)
	if u, err := url.Parse(opts.HubURL); opts.HubURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return usageErr("for example --hub https://hub.example.org/", "--hub %q is not an absolute http(s) URL", opts.HubURL)
	}
	opts.Hub = &notify.Hub{RequestTimeout: c.Duration(flagTimeout), Attempts: c.Int(flagRetries) + 1}
	out, quiet := c.App.Writer, c.Bool(flagQuiet)
	opts.Sent = func(ch notify.Channel, capability string, entries int, payload []byte) {
		switch {
		case opts.DryRun:
			fmt.Fprintf(out, "POST %s\nContent-Type: %s\nLink: %s\n\n%s\n", ch.Hub, notify.ContentType, notify.LinkHeader(ch), payload)
		case !quiet:
			fmt.Fprintf(c.App.ErrWriter, "rsgen: sent a %s of %s to %s (topic %s)\n", capability, units.Count(entries, "entry"), ch.Hub, ch.Topic)
		}
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration(flagMaxTime))
	defer cancel()
	res, err := notify.Run(ctx, dir, opts)
	if err != nil {
		return notifyError(err)
	}
	if !quiet && !opts.DryRun {
		fmt.Fprintf(c.App.ErrWriter, "rsgen: notified %s and %s in %s\n",
			units.Count(res.Changes, "change"), units.Count(res.Framework, "framework change"), units.Count(res.Payloads, "request"))
	}
	return nil
}

// notifyError gives err its exit code and hint.
func notifyError(err error) error {
	var he *notify.HubError
	switch {
	case errors.As(err, &he) && errors.Is(err, notify.ErrHubURL):
		return failure(err, "the hub URL comes from the Capability List: rebuild with a valid --hub, or give notify --hub")
	case errors.As(err, &he) && errors.Is(err, notify.ErrRejected) && he.Status >= 400 && he.Status < 500 && he.Status != 429:
		return &exitError{code: exitHub, err: err, hint: "the hub refused the request: check that it accepts ResourceSync payloads for this topic"}
	case errors.Is(err, notify.ErrCanceled):
		return failure(err, "the state file is unchanged: run rsgen notify again to send what was not sent")
	case errors.As(err, &he):
		return &exitError{code: exitHub, err: err, hint: "run rsgen notify again later: the state file is unchanged, nothing is lost (see --retries, --timeout)"}
	case errors.Is(err, notify.ErrNoChannel):
		return failure(err, "build with --hub URL to advertise the notification channels")
	case errors.Is(err, notify.ErrOtherSite):
		return failure(err, "give each site its own --state file (after a move of the site, delete the old one)")
	case errors.Is(err, notify.ErrBadState):
		return failure(err, "give --state a file rsgen notify wrote, or a new path")
	case errors.Is(err, notify.ErrNotDir), errors.Is(err, previous.ErrNothingPublished):
		return failure(err, "give the --out directory of rsgen build")
	case errors.Is(err, context.DeadlineExceeded):
		return failure(err, "raise --max-time")
	}
	return failure(err, "")
}
