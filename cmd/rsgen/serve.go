package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/hosting"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "preview an output directory on this machine, served the way a correctly configured host serves it",
		ArgsUsage: "DIR",
		Description: "Serves DIR over HTTP: /.well-known/resourcesync and the documents as application/xml, the\n" +
			"Link: <…capabilitylist.xml>; rel=\"resourcesync\" header on every response, index.html for\n" +
			"directories; hidden files and rsgen's host configuration are not served. Point a Destination\n" +
			"at it before deploying (build with --base-url http://127.0.0.1:8000/ for its links to lead\n" +
			"here). Ctrl-C stops it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagAddr, Value: "127.0.0.1:8000", Usage: "`HOST:PORT` to listen on"},
		},
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	if err := flagAmongArgs(c, "DIR"); err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usageErr("run 'rsgen serve DIR'", "give one directory to serve")
	}
	dir := c.Args().First()
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return usageErr("give the --out directory of rsgen build", "%s is not a directory", dir)
	}
	stderr := c.App.ErrWriter
	if _, err := os.Stat(filepath.Join(dir, ".well-known", "resourcesync")); err != nil {
		fmt.Fprintf(stderr, "rsgen: warning: %s has no .well-known/resourcesync: is it the output of rsgen build?\n", dir)
	}
	ln, err := net.Listen("tcp", c.String(flagAddr))
	if err != nil {
		return failure(err, "choose another address with --addr, e.g. --addr 127.0.0.1:8001")
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "rsgen: warning: listening on %s, which other machines can reach\n", ln.Addr())
	}
	srv := &http.Server{Handler: hosting.Handler(dir), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "rsgen: serving %s at http://%s/ (Source Description: http://%s/.well-known/resourcesync); Ctrl-C stops\n", dir, ln.Addr(), ln.Addr())
	select {
	case err := <-done:
		return failure(err, "")
	case <-c.Context.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close() // requests still running after 5 s are cut
		if !errors.Is(err, context.DeadlineExceeded) {
			return failure(err, "")
		}
	}
	fmt.Fprintln(stderr, "rsgen: stopped")
	return nil
}
