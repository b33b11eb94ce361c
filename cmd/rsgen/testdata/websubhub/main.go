// Command websubhub is a WebSub hub for rsgen's tests: the hub of the
// go-websub library (../third_party/go-websub), listening on 127.0.0.1.
// It prints its URL on the first line of its output and serves until it
// is killed.
//
// Subscriptions, the verification of intent, signatures and the
// distribution of content are the library's. Two things are added around
// it:
//
//   - A publication as ResourceSync Change Notification 1.0.1 §4.1 makes
//     it (a POST of the payload itself, its topic in a Link header with
//     rel="self") is handed to the library's publish of a body
//     (hub.mode=publish, hub.topic, hub.content=body): WebSub leaves the
//     way publishers notify a hub to each hub, and the library takes a
//     body only that way.
//   - GET /_topics lists the topics that have subscribers or
//     publications, so that a test can wait for a subscription to be
//     registered after its verification.
//
// Under /plain/ the library serves alone, as it comes: a hub that takes
// publications only its own way.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/notnotquinn/go-websub"
	"github.com/tomnomnom/linkheader"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	url := "http://" + ln.Addr().String() + "/"
	hub := websub.NewHub(url, websub.HubAllowPostBodyAsContent(true))
	mux := http.NewServeMux()
	mux.Handle("/plain/", hub)
	mux.HandleFunc("/_topics", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(hub.GetTopics())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			var topic string
			for _, l := range linkheader.ParseMultiple(r.Header.Values("Link")) {
				if l.Rel == "self" {
					topic = l.URL
				}
			}
			if topic == "" {
				http.Error(w, "a publication needs a Link header with rel=\"self\" naming its topic", http.StatusBadRequest)
				return
			}
			q := r.URL.Query()
			q.Set("hub.mode", "publish")
			q.Set("hub.topic", topic)
			q.Set("hub.content", "body")
			r.URL.RawQuery = q.Encode()
		}
		hub.ServeHTTP(w, r)
	})
	fmt.Println(url)
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
