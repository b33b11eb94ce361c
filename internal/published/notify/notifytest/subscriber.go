package notifytest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"time"
)

// A Delivery is a notification the hub distributed to a Subscriber.
type Delivery struct {
	ContentType string
	Topic, Hub  string // from its Link header
	Body        []byte
}

// Subscriber is a WebSub subscriber on 127.0.0.1: it subscribes to topics
// at a hub, answers the hub's verification of intent for those topics
// only, and keeps what the hub delivers.
type Subscriber struct {
	srv        *httptest.Server
	mu         sync.Mutex
	wanted     map[string]bool
	verified   map[string]chan struct{}
	Deliveries chan Delivery
}

// NewSubscriber starts a subscriber. Close it.
func NewSubscriber() *Subscriber {
	s := &Subscriber{wanted: map[string]bool{}, verified: map[string]chan struct{}{}, Deliveries: make(chan Delivery, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the subscriber.
func (s *Subscriber) Close() { s.srv.Close() }

// Subscribe subscribes to topic at hub and waits, up to wait, for the
// hub to verify the subscription.
func (s *Subscriber) Subscribe(hub, topic string, wait time.Duration) error {
	done := make(chan struct{})
	s.mu.Lock()
	s.wanted[topic] = true
	s.verified[topic] = done
	s.mu.Unlock()
	resp, err := http.PostForm(hub, url.Values{
		"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {s.srv.URL + "/callback"},
	})
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("subscribing to %s: HTTP %s", topic, resp.Status)
	}
	select {
	case <-done:
		return nil
	case <-time.After(wait):
		return fmt.Errorf("subscribing to %s: the hub did not verify the subscription", topic)
	}
}

func (s *Subscriber) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet: // verification of intent
		q := r.URL.Query()
		topic := q.Get("hub.topic")
		s.mu.Lock()
		ok := q.Get("hub.mode") == "subscribe" && s.wanted[topic]
		done := s.verified[topic]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, q.Get("hub.challenge"))
		if done != nil {
			defer func() {
				s.mu.Lock()
				if s.verified[topic] == done {
					close(done)
					delete(s.verified, topic)
				}
				s.mu.Unlock()
			}()
		}
	case http.MethodPost: // content distribution
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		topic, hub := links(r.Header.Values("Link"))
		select {
		case s.Deliveries <- Delivery{ContentType: r.Header.Get("Content-Type"), Topic: topic, Hub: hub, Body: body}:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "GET or POST", http.StatusMethodNotAllowed)
	}
}
