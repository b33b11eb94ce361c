package generator

import (
	"github.com/rsgen/rsgen/generator/internal/hostfiles"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hosting"
)

// hostFiles is what the pages and the hosts' files show of b (package
// hostfiles), once its documents are staged; resources are those it
// publishes, nil for a record export.
func (b *build) hostFiles(resources *spill.ResourceSpool) *hostfiles.Set {
	s := &hostfiles.Set{
		Name: b.cfg.Set, Hosts: b.cfg.Hosts, Templates: b.cfg.Templates,
		BaseURL: b.cfg.BaseURL.base, DocsURL: b.cfg.DocsURL.base, Describedby: b.cfg.Describedby, Hashes: b.cfg.Hashes,
		At: b.at, Completed: b.done,
		Docs: b.docs, Stage: b.stage, Resources: resources, OutIsSource: b.outRel == "", FollowLinks: b.cfg.FollowSymlinks, Notice: b.notice,
	}
	if b.export != nil { // a record export has no spool of resources: see package exports
		s.Resources, s.Listed, s.Bytes = nil, b.export.Listed, b.export.Bytes
	}
	return s
}

// checkHostFiles fails a build, before it scans anything, when a file the
// hosts need exists in the output and is the user's.
func checkHostFiles(cfg *Config) error { return hosting.CheckConflicts(cfg.Out, cfg.Hosts) }
