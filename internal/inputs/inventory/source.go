package inventory

import (
	"context"
	"encoding/hex"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
)

// A Source is an inventory, a report or both as a bucket's scan uses
// them: List lists the objects the inventory gives, Known gives the
// digests of an object that need no request. Its methods are called from
// the one goroutine of the listing.
type Source struct {
	Inventory *Inventory // nil: the bucket is listed, not its inventory
	Digests   *Digests   // nil: no report
	Prefix    string     // the keys published are under it ("" or ending in "/")
	Tmp       string     // where the inventory's rows are sorted

	cur Object // the object List gave last
}

// List calls fn with each object of the inventory under Prefix, in the
// order of their keys (Inventory.List).
func (s *Source) List(ctx context.Context, fn func(*bucket.Object) error) error {
	return s.Inventory.List(ctx, s.Prefix, s.Tmp, func(o *Object) error {
		s.cur = *o
		return fn(&s.cur.Object)
	})
}

// Known returns the digests of o that need no request: the report's
// (Digests.Find) and, where the inventory shows the ETag of o to be its
// MD5, that. It is called with keys in ascending order.
func (s *Source) Known(o *bucket.Object) (bucket.Stored, error) {
	var version string
	listed := s.Inventory != nil && s.cur.Key == o.Key
	if listed {
		version = s.cur.VersionID
	}
	st, err := s.Digests.Find(o, version)
	if st.MD5 == nil && listed && s.cur.MD5 {
		st.MD5, _ = hex.DecodeString(o.ETag)
	}
	return st, err
}
