package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/hosting"
)

func serveCommand() *cli.Command {
	return withHelp(&cli.Command{
		Name:      "serve",
		Usage:     "preview an output directory, served as a static host should",
		ArgsUsage: "DIR",
		Description: `Serves DIR over HTTP as a static host should (documents as application/xml,
the Link rel="resourcesync" header); only what is inside DIR, not hidden
files or rsgen's host configuration. --content SOURCE serves the files of a
build into --out elsewhere too. Ctrl-C stops it.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagAddr, Value: "127.0.0.1:8000", Usage: "`HOST:PORT` to listen on; a bare PORT or :PORT listens on 127.0.0.1 (give 0.0.0.0:PORT to be reachable from other machines)"},
			&cli.StringFlag{Name: flagContent, Usage: "`SOURCE` directory whose files are served where DIR has none: the collection, when the documents were built into --out elsewhere"},
		},
		Action: runServe,
	}, "",
		"# The documents and the files, built into public/ itself\n"+
			"rsgen build public --base-url http://127.0.0.1:8000/ && rsgen serve public",
	)
}

// listenAddr reads --addr: a bare port, or a host left out, means this
// machine only; listening on every interface must be asked for by name.
func listenAddr(addr string) (string, error) {
	if addr != "" && strings.Trim(addr, "0123456789") == "" {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return net.JoinHostPort(cmp.Or(host, "127.0.0.1"), port), nil
}

func runServe(c *cli.Context) error {
	dir, err := oneArg(c, "directory to serve", "run 'rsgen serve DIR'")
	if err != nil {
		return err
	}
	content := c.String(flagContent)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return usageErr("give the --out directory of rsgen build", "%s is not a directory", dir)
	}
	if info, err := os.Stat(content); content != "" && (err != nil || !info.IsDir()) {
		return usageErr("give --content the SOURCE directory of rsgen build", "--content %s is not a directory", content)
	}
	addr, err := listenAddr(c.String(flagAddr))
	if err != nil {
		return usageErr("for example --addr 8001 (this machine only) or --addr 0.0.0.0:8001 (every interface)", "--%s %s: %v", flagAddr, c.String(flagAddr), err)
	}
	stderr := c.App.ErrWriter
	if _, err := os.Stat(filepath.Join(dir, ".well-known", "resourcesync")); err != nil {
		fmt.Fprintf(stderr, "rsgen: warning: %s has no .well-known/resourcesync: is it the output of rsgen build?\n", dir)
	}
	handler, err := hosting.NewHandler(dir, content)
	if err != nil {
		return failure(err, "")
	}
	defer handler.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failure(err, "choose another address with --addr, e.g. --addr 127.0.0.1:8001")
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "rsgen: warning: listening on %s, which other machines can reach\n", ln.Addr())
	}
	if info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(hosting.LandingPage))); err == nil && info.Mode().IsRegular() {
		fmt.Fprintf(stderr, "rsgen: landing page: http://%s/%s\n", ln.Addr(), path.Dir(hosting.LandingPage)+"/")
	}
	if content != "" {
		dir += " (and " + content + ")"
	}
	fmt.Fprintf(stderr, "rsgen: serving %s at http://%s/ (Source Description: http://%s/.well-known/resourcesync); Ctrl-C stops\n", dir, ln.Addr(), ln.Addr())
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
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
