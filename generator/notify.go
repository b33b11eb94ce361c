package generator

import (
	"cmp"
	"net/url"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// Notification is how the Capability List advertises the notification
// channels of the collection (ResourceSync Change Notification 1.0.1 and
// Framework Notification 1.0.1, section 5 of each): one entry per channel,
// its <loc> the WebSub topic, its <rs:md capability> the channel's kind,
// and an <rs:ln rel="hub"> to the hub. Nothing is advertised if Hub is "".
type Notification struct {
	Hub            string `toml:"hub"`             // URL of the WebSub hub
	ChangeTopic    string `toml:"change-topic"`    // topic of change notifications; changelist-notification under the documents if ""
	FrameworkTopic string `toml:"framework-topic"` // topic of framework notifications; framework-notification under the documents if ""
}

// topics are the topics of the change and framework channels: those given,
// else the default ones under the documents of the build's set.
func (c *Config) topics() (change, framework string) {
	dir := cmp.Or(c.DocsURL, c.BaseURL).String() + setDir(c.Set) + "/"
	return cmp.Or(c.Notification.ChangeTopic, dir+"changelist-notification"), cmp.Or(c.Notification.FrameworkTopic, dir+"framework-notification")
}

// notificationEntries are the Capability List entries of the channels.
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

// validateNotification checks the channels: their URLs are published for
// anyone to read.
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

// httpURL reports whether s is an absolute http or https URL.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
