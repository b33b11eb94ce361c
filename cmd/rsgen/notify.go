package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
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
		Description: `Posts to the WebSub hub the change notifications (Change List entries newer
than the last run, --state, or --since) and framework notifications of the
build published in DIR (the --out of rsgen build --hub), as ResourceSync
Change and Framework Notification 1.0.1 say. Failed requests are tried
again; the state file is written only when every payload was taken.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagState, EnvVars: []string{"RSGEN_NOTIFY_STATE"}, Usage: "`FILE` that remembers what was notified, read and then rewritten (keep it between runs, in the CI cache say)"},
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
	)
}

func runNotify(c *cli.Context) error {
	dir, err := oneArg(c, "output directory (the --out of rsgen build)", "run 'rsgen notify [flags] DIR'")
	if err != nil {
		return err
	}
	since, hub := c.String(flagSince), c.String(flagHub)
	sinceTime, sinceErr := time.Parse(time.RFC3339, since)
	u, hubErr := url.Parse(hub)
	err = checkFlags(
		flagRule{since != "" && sinceErr != nil, flagSince, strconv.Quote(since), "is not an RFC 3339 time", "for example --since 2026-01-02T15:04:05Z"},
		flagRule{c.Duration(flagTimeout) <= 0, flagTimeout, c.Duration(flagTimeout), "is out of range: give a positive duration", "for example --timeout 30s"},
		flagRule{c.Duration(flagMaxTime) <= 0, flagMaxTime, c.Duration(flagMaxTime), "is out of range: give a positive duration", "for example --max-time 5m"},
		flagRule{c.Int(flagRetries) < 0 || c.Int(flagRetries) > 20, flagRetries, c.Int(flagRetries), "is out of range: give a number from 0 to 20", ""},
		flagRule{hub != "" && (hubErr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""), flagHub, strconv.Quote(hub),
			"is not valid: not an absolute http(s) URL", "for example --hub https://hub.example.org/"})
	if err != nil {
		return err
	}
	opts := notify.Options{State: c.String(flagState), DryRun: c.Bool(flagDryRun), Since: sinceTime, HubURL: hub}
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

// notifyError gives err its exit code and hint: a hub that did not take
// a notification is exitHub, the rest failures.
func notifyError(err error) error {
	var he *notify.HubError
	if errors.As(err, &he) && !errors.Is(err, notify.ErrHubURL) && !errors.Is(err, notify.ErrCanceled) {
		hint := "run rsgen notify again later: the state file is unchanged, nothing is lost (see --retries, --timeout)"
		if errors.Is(err, notify.ErrRejected) && he.Status >= 400 && he.Status < 500 && he.Status != 429 {
			hint = "the hub refused the request: check that it accepts ResourceSync payloads for this topic"
		}
		return &exitError{code: exitHub, err: err, hint: hint}
	}
	for _, h := range []struct {
		err  error
		hint string
	}{
		{notify.ErrHubURL, "the hub URL comes from the Capability List: rebuild with a valid --hub, or give notify --hub"},
		{notify.ErrCanceled, "the state file is unchanged: run rsgen notify again to send what was not sent"},
		{notify.ErrNoChannel, "build with --hub URL to advertise the notification channels"},
		{notify.ErrOtherSite, "give each site its own --state file (after a move of the site, delete the old one)"},
		{notify.ErrBadState, "give --state a file rsgen notify wrote, or a new path"},
		{notify.ErrNotDir, "give the --out directory of rsgen build"},
		{previous.ErrNothingPublished, "give the --out directory of rsgen build"},
		{context.DeadlineExceeded, "raise --max-time"},
	} {
		if errors.Is(err, h.err) {
			return failure(err, h.hint)
		}
	}
	return failure(err, "")
}
