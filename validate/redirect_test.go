package validate_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/validate"
)

// redirects serves /r/N as a redirect to /r/N-1, and /r/0 as one to the
// Source Description.
func redirects(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, ok := strings.CutPrefix(r.URL.Path, "/r/"); ok {
			k, _ := strconv.Atoi(n)
			to := "/.well-known/resourcesync"
			if k > 1 {
				to = fmt.Sprintf("/r/%d", k-1)
			}
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// validate follows redirects as rsgen build follows those of --previous
// (previous.NewClient): five, not a sixth.
func TestSiteRedirects(t *testing.T) {
	base := servedSite(t, redirects)
	for _, tt := range []struct {
		redirects int
		ok        bool
	}{{1, true}, {5, true}, {6, false}} {
		rep, err := validate.Site(context.Background(), fmt.Sprintf("%sr/%d", base, tt.redirects), validate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		refused := false
		for _, f := range rep.Findings {
			if f.Rule == validate.RuleFetch && strings.Contains(f.Message, "more than 5 redirects") {
				refused = true
			}
		}
		if refused == tt.ok || rep.Valid(false) != tt.ok {
			t.Errorf("%d redirects: valid %v, refused %v; findings %v", tt.redirects, rep.Valid(false), refused, rep.Findings)
		}
	}
}
