// Package notify sends the ResourceSync notifications of a published build
// to a WebSub hub: change notifications (ResourceSync Change Notification
// 1.0.1) for the resources in its Change List, and framework notifications
// (ResourceSync Framework Notification 1.0.1) for the documents that were
// created, updated or deleted since the last time it notified.
//
// [Run] reads what a build published in its output directory (readSite):
// the channels its Capability List advertises (capability
// changelist-notification and framework-notification, each with an
// <rs:ln rel="hub">), its documents and the entries of its Change List.
// It compares that with the [State] of the last run (plan) and renders the
// notifications to send as the <urlset> documents the specifications
// define, split at the Sitemap limits (payloads). A [Hub] posts each
// payload to the hub with the Link headers that name the topic
// (rel="self") and the hub (rel="hub"), with per-request and overall
// time-outs and bounded retries; its failures are [*HubError] values that
// wrap [ErrUnreachable], [ErrRejected] or [ErrTimeout].
//
// Nothing here is safe for concurrent use unless it says so; a Hub may be
// used from several goroutines.
package notify
