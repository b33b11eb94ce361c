// Package notify sends the ResourceSync notifications of a published build
// to a WebSub hub: change notifications (ResourceSync Change Notification
// 1.0.1) for the resources in its Change List, and framework notifications
// (ResourceSync Framework Notification 1.0.1) for the documents that were
// created, updated or deleted since the last time it notified.
//
// [Run] reads what a build published (readSite): the channels its
// Capability List advertises, its documents and its Change List entries.
// It compares them with the [State] of the last run (plan), renders the
// notifications as <urlset> documents split at the Sitemap limits
// (payloads), and a [Hub] posts each with bounded retries; its failures are
// [*HubError] values with a kind ([ErrUnreachable], [ErrTimeout], …).
//
// Nothing here is safe for concurrent use unless it says so; a Hub may be
// used from several goroutines.
package notify
