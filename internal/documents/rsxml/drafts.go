package rsxml

// nsDraft2012 is the namespace of the 2012 drafts of ResourceSync, which
// early documents carry.
const nsDraft2012 = "http://www.openarchives.org/rs/"

// draftHint says, of an element of the 2012 drafts' namespace, which one
// ResourceSync uses.
func draftHint(space string) string {
	if space == nsDraft2012 {
		return "; that is the namespace of the 2012 drafts: ResourceSync 1.0 and 1.1 use " + NSRS
	}
	return ""
}
