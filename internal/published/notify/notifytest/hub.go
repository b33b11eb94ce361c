// Package notifytest runs a WebSub hub and a subscriber on 127.0.0.1, for
// tests of what rsgen notify sends.
//
// The hub speaks W3C WebSub (subscription with verification of intent,
// section 5; content distribution, section 7) and takes publications the
// way ResourceSync Change Notification 1.0.1 (section 4.1) has a Source
// make them: a POST whose body is the notification and whose Link header
// names the topic (rel="self") and the hub (rel="hub"). It distributes
// the body, its Content-Type and those links to every verified subscriber
// of the topic. No WebSub hub that takes publications with content could
// be installed where rsgen is built and tested (see docs/NOTIFICATIONS.md),
// so this one is kept small and strict instead: a publication that lacks
// any of those parts is refused with 400, as a hub would refuse it.
//
// A Hub and a Subscriber may be used from several goroutines.
package notifytest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Hub is a WebSub hub on 127.0.0.1.
type Hub struct {
	URL string // where publishers post and subscribers subscribe

	srv    *httptest.Server
	client *http.Client
	mu     sync.Mutex
	subs   map[string]map[string]bool // topic → verified callbacks
	wg     sync.WaitGroup
	// Published counts the publications the hub accepted.
	published int
}

// NewHub starts a hub. Close it.
func NewHub() *Hub {
	h := &Hub{subs: map[string]map[string]bool{}, client: &http.Client{Timeout: 5 * time.Second}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	h.URL = h.srv.URL + "/"
	return h
}

// Close stops the hub once its deliveries are done.
func (h *Hub) Close() {
	h.srv.Close()
	h.wg.Wait()
}

// Published returns the number of publications the hub accepted.
func (h *Hub) Published() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.published
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" {
		h.subscribe(w, r)
		return
	}
	h.publish(w, r)
}

// subscribe handles a subscription request (WebSub 5.1) and verifies the
// subscriber's intent (5.3) before the subscription counts.
func (h *Hub) subscribe(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	mode, topic, callback := r.PostForm.Get("hub.mode"), r.PostForm.Get("hub.topic"), r.PostForm.Get("hub.callback")
	if mode != "subscribe" && mode != "unsubscribe" || topic == "" || callback == "" {
		http.Error(w, "hub.mode, hub.topic and hub.callback are required", http.StatusBadRequest)
		return
	}
	if u, err := url.Parse(callback); err != nil || u.Scheme != "http" && u.Scheme != "https" {
		http.Error(w, "hub.callback is not an http(s) URL", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if !h.verify(mode, topic, callback) {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if mode == "unsubscribe" {
			delete(h.subs[topic], callback)
			return
		}
		if h.subs[topic] == nil {
			h.subs[topic] = map[string]bool{}
		}
		h.subs[topic][callback] = true
	}()
}

// verify asks the callback to echo a challenge (WebSub 5.3).
func (h *Hub) verify(mode, topic, callback string) bool {
	var b [16]byte
	rand.Read(b[:])
	challenge := hex.EncodeToString(b[:])
	q := url.Values{"hub.mode": {mode}, "hub.topic": {topic}, "hub.challenge": {challenge}, "hub.lease_seconds": {"3600"}}
	sep := "?"
	if strings.Contains(callback, "?") {
		sep = "&"
	}
	resp, err := h.client.Get(callback + sep + q.Encode())
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return resp.StatusCode/100 == 2 && string(body) == challenge
}

// publish takes a notification with its content (ResourceSync Change
// Notification 1.0.1, 4.1) and distributes it (WebSub 7).
func (h *Hub) publish(w http.ResponseWriter, r *http.Request) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		http.Error(w, "Content-Type is required", http.StatusBadRequest)
		return
	}
	topic, hub := links(r.Header.Values("Link"))
	if topic == "" || hub == "" {
		http.Error(w, `a Link header with rel="self" (the topic) and rel="hub" is required`, http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil || len(body) == 0 {
		http.Error(w, "the notification is the body: it is empty", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.published++
	var callbacks []string
	for cb := range h.subs[topic] {
		callbacks = append(callbacks, cb)
	}
	h.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
	link := fmt.Sprintf(`<%s>; rel="hub", <%s>; rel="self"`, hub, topic)
	for _, cb := range callbacks {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			req, err := http.NewRequest(http.MethodPost, cb, bytes.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Link", link)
			if resp, err := h.client.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
}

// links returns the targets of rel="self" and rel="hub" in Link header
// values (RFC 8288): comma-separated <target>; params.
func links(values []string) (self, hub string) {
	for _, v := range values {
		for _, part := range splitLinks(v) {
			target, params, ok := strings.Cut(part, ">")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") {
				continue
			}
			target = target[1:]
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if !strings.EqualFold(strings.TrimSpace(k), "rel") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
					switch strings.ToLower(rel) {
					case "self":
						self = target
					case "hub":
						hub = target
					}
				}
			}
		}
	}
	return self, hub
}

// splitLinks splits a Link header value at the commas between links, not
// those inside <…> or quotes.
func splitLinks(v string) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '<' && !quoted:
			depth++
		case c == '>' && !quoted && depth > 0:
			depth--
		case c == ',' && !quoted && depth == 0:
			parts = append(parts, v[start:i])
			start = i + 1
		}
	}
	return append(parts, v[start:])
}

// WaitSubscribers waits, up to wait, until topic has n verified
// subscribers.
func (h *Hub) WaitSubscribers(topic string, n int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		h.mu.Lock()
		got := len(h.subs[topic])
		h.mu.Unlock()
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s has %d verified subscribers, not %d", topic, got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
