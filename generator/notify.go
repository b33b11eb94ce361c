package generator

import (
	"cmp"
	"net/url"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// Notification is the notification channels the Capability List
// advertises (Change Notification and Framework Notification 1.0.1,
// section 5): one entry per WebSub topic, with a link to the hub. Nothing
// is advertised if Hub is "".
type Notification struct {
	Hub            string `toml:"hub"`             // URL of the WebSub hub
	ChangeTopic    string `toml:"change-topic"`    // topic of change notifications; changelist-notification under the documents if ""
	FrameworkTopic string `toml:"framework-topic"` // topic of framework notifications; framework-notification under the documents if ""
}

// topics are the topics of the channels: those given, else the defaults
// under the documents of the set.
func (c *Config) topics() (change, framework string) {
	dir := cmp.Or(c.DocsURL, c.BaseURL).String() + setDir(c.Set) + "/"
	return cmp.Or(c.Notification.ChangeTopic, dir+"changelist-notification"), cmp.Or(c.Notification.FrameworkTopic, dir+"framework-notification")
}

func (b *build) notificationEntries() []rsxml.Entry {
	if b.cfg.Notification.Hub == "" {
		return nil
	}
	change, framework := b.cfg.topics()
	hub := []rsxml.Link{{Rel: "hub", Href: b.cfg.Notification.Hub}}
	return []rsxml.Entry{
		{Loc: change, MD: rsxml.MD{Capability: rsxml.CapChangeListNotification}, Links: hub},
		{Loc: framework, MD: rsxml.MD{Capability: rsxml.CapFrameworkNotification}, Links: hub},
	}
}

func (c *Config) validateNotification(v *validation) {
	n := &c.Notification
	if n.Hub == "" {
		v.check(
			rule{n.ChangeTopic != "", "Notification.ChangeTopic", nil, errNeeds, "Notification.Hub", "a topic is advertised with its hub"},
			rule{n.FrameworkTopic != "", "Notification.FrameworkTopic", nil, errNeeds, "Notification.Hub", "a topic is advertised with its hub"},
		)
		return
	}
	for _, f := range []struct{ field, v string }{{"Notification.Hub", n.Hub}, {"Notification.ChangeTopic", n.ChangeTopic}, {"Notification.FrameworkTopic", n.FrameworkTopic}} {
		switch u, err := url.Parse(f.v); {
		case f.v == "":
		case err != nil || !httpURL(f.v):
			v.add(&FieldError{Field: f.field, Value: f.v, Err: errInvalid, Detail: notHTTPURL})
		case u.User != nil:
			v.add(&FieldError{Field: f.field, Value: u.Redacted(), Err: errInvalid, Detail: "it has credentials, which the Capability List would publish"})
		}
	}
	if change, framework := c.topics(); change == framework {
		field, with := "Notification.FrameworkTopic", "Notification.ChangeTopic"
		if n.FrameworkTopic == "" {
			field, with = with, field
		}
		v.add(&FieldError{Field: field, Err: errSame, With: with, Detail: "each channel needs a topic of its own (" + change + ")"})
	}
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
