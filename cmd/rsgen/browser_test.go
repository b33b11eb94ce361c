package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/rsgen/rsgen/internal/testenv"
)

// chromium is Debian's chromium, which .ci/run installs.
const chromium = "/usr/bin/chromium"

// TestLandingPagesInBrowser opens the landing pages of a built site of
// two sets, served by rsgen serve, in a real browser (headless Chromium):
// each renders, with no console error; every link on it answers 200;
// the pages of what changed show the chart of changes; and the layout holds at a
// phone's width and a desktop's, without a horizontal scroll bar.
func TestLandingPagesInBrowser(t *testing.T) {
	browser, err := exec.LookPath(chromium)
	if err != nil {
		testenv.Need(t, chromium, "apt-get install chromium")
	}
	clearEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr + "/"

	// The example site, its articles and its data published as two sets
	// into the site itself, built twice, so that there are changes.
	site := testenv.CopySite(t, siteMtime)
	config := filepath.Join(filepath.Dir(site), "rsgen.toml")
	toml := fmt.Sprintf(`out = "site"
docs-url = %[1]q
previous = "site"
first-build-ok = true

[[set]]
name = "articles"
source = "site/articles"
base-url = "%[1]sarticles/"

[[set]]
name = "data"
source = "site/data"
base-url = "%[1]sdata/"
`, base)
	if err := os.WriteFile(config, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), "build", "--config", config, "--at", "2024-06-01T00:00:00Z"); code != exitOK {
		t.Fatalf("build: exit %d:\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(site, "articles", "new.html"), []byte("<!doctype html><title>new</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), "build", "--config", config, "--at", "2024-06-02T00:00:00Z"); code != exitOK {
		t.Fatalf("build: exit %d:\n%s", code, stderr)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, serr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"rsgen", "serve", "--addr", addr, site}, &stdout, &serr) }()
	defer func() { cancel(); <-done }()
	first := regexp.MustCompile(`^rsgen: landing page: (http://\S+)\n`)
	var landing string
	for i := 0; i < 500 && landing == ""; i++ {
		if m := first.FindStringSubmatch(serr.String()); m != nil {
			landing = m[1]
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if landing != base+"resourcesync/" {
		t.Fatalf("serve's first line does not name the landing page %sresourcesync/:\n%s", base, serr.String())
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	tctx, tcancel := context.WithTimeout(bctx, 60*time.Second)
	defer tcancel()
	var mu sync.Mutex
	var console []string // what the console shows of errors and warnings
	err = chromedp.Listen(tctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				console = append(console, fmt.Sprintf("console.%s", ev.Type))
			}
		case *runtime.EventExceptionThrown:
			console = append(console, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				console = append(console, fmt.Sprintf("%s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}

	for _, page := range []string{landing, landing + "articles/index.html", landing + "data/index.html"} {
		for _, width := range []int64{375, 1280} {
			t.Run(fmt.Sprintf("%s at %dpx", strings.TrimPrefix(page, base), width), func(t *testing.T) {
				mu.Lock()
				console = nil
				mu.Unlock()
				if err := chromedp.Do(tctx, chromedp.EmulateViewport(width, 800), chromedp.Navigate(page)); err != nil {
					t.Fatal(err)
				}
				h1, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS("h1")))
				if err != nil {
					t.Fatal(err)
				}
				if h1 != "ResourceSync" {
					t.Errorf("h1 %q, want ResourceSync", h1)
				}
				widths, err := chromedp.Run(tctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
				if err != nil {
					t.Fatal(err)
				}
				if widths[0] > widths[1] || widths[1] != int(width) {
					t.Errorf("scrollWidth %d in a window %d wide, want at most %d", widths[0], widths[1], width)
				}
				if !strings.HasSuffix(page, "data/index.html") { // the site's and the articles' have changes
					bars, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart g rect').length`))
					if err != nil {
						t.Fatal(err)
					}
					if bars == 0 {
						t.Error("no bar in the chart of changes")
					}
				}
				links, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('a[href]'), a => a.href)`))
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				if len(console) > 0 {
					t.Errorf("the console shows:\n%s", strings.Join(console, "\n"))
				}
				mu.Unlock()
				if width == 375 {
					checkLinks(t, base, links)
				}
			})
		}
	}
}

// checkLinks gets each of links that base serves: each must answer 200.
// Links to other hosts (the specification's) are not followed: these
// machines have no network.
func checkLinks(t *testing.T, base string, links []string) {
	t.Helper()
	if len(links) < 5 {
		t.Errorf("%d links, want every set's and document's: %q", len(links), links)
	}
	for _, l := range links {
		if !strings.HasPrefix(l, base) {
			if u, err := url.Parse(l); err != nil || u.Host != "www.openarchives.org" {
				t.Errorf("a link to another host: %s", l)
			}
			continue
		}
		resp, err := http.Get(l)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d", l, resp.StatusCode)
		}
	}
}
