package generator

import (
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// Notification is how the Capability List advertises the notification
// channels of the collection (ResourceSync Change Notification 1.0.1 and
// Framework Notification 1.0.1, section 5 of each): one entry per channel,
// its <loc> the WebSub topic, its <rs:md capability> the channel's kind,
// and an <rs:ln rel="hub"> to the hub. Nothing is advertised if Hub is "".
type Notification struct {
	Hub            string `toml:"hub"`             // URL of the WebSub hub
	ChangeTopic    string `toml:"change-topic"`    // topic of change notifications; DefaultChangeTopic under the documents if ""
	FrameworkTopic string `toml:"framework-topic"` // topic of framework notifications; DefaultFrameworkTopic under the documents if ""
}

// Default topic names, relative to where the documents are served.
const (
	DefaultChangeTopic    = "changelist-notification"
	DefaultFrameworkTopic = "framework-notification"
)

// notificationEntries are the Capability List entries of the channels.
func (b *build) notificationEntries() []rsxml.Entry {
	n := b.cfg.Notification
	if n.Hub == "" {
		return nil
	}
	change, framework := b.cfg.topics()
	hub := []rsxml.Link{{Rel: "hub", Href: n.Hub}}
	return []rsxml.Entry{
		{Loc: change, MD: rsxml.MD{Capability: rsxml.CapChangeListNotification}, Links: hub},
		{Loc: framework, MD: rsxml.MD{Capability: rsxml.CapFrameworkNotification}, Links: hub},
	}
}
