package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// ErrNoChannel is returned by Run when a Capability List advertises no
// notification channel.
var ErrNoChannel = errors.New("the Capability List advertises no notification channel")

// ErrNotDir is returned by Run when its argument is not a directory (a
// URL, say): notify reads the build where it was written.
var ErrNotDir = errors.New("not a directory: give the output directory of the build")

// A Channel is a notification channel the Capability List advertises: the
// entry's <loc> and its <rs:ln rel="hub">.
type Channel struct{ Topic, Hub string }

// A Document is a capability document the build published.
type Document struct {
	URL        string
	Capability string
	Index      string // the URL of the index it is listed by, "" if none
	Hash       string // "sha-256:hex" of its bytes
}

// A Site is what readSite found in an output directory.
type Site struct {
	SourceDescription string
	CapabilityList    string
	Change, Framework *Channel // nil where not advertised

	// Documents are the Source Description, the Capability List and the
	// documents it lists (the parts of an index, not the index itself:
	// framework notifications are never sent at the index level).
	Documents []Document
	Changes   []rsxml.Entry // of the Change List, all its parts, in order
	At        string        // the snapshot time of the Resource List, "" if none
}

// readSite reads the documents of the resource set named set ("" for a
// build without sets) published in dir.
func readSite(ctx context.Context, dir, set string) (*Site, error) {
	prev, err := previous.Read(ctx, dir, previous.Options{Set: set, Notice: func(string) {}})
	if err != nil {
		return nil, err
	}
	s := &Site{CapabilityList: prev.CapabilityList}
	if !prev.At.IsZero() {
		s.At = rsxml.FormatTime(prev.At)
	}
	capDoc, capEntries, capHash, err := readDoc(prev, prev.CapabilityList)
	if err != nil {
		return nil, err
	}
	s.SourceDescription = capDoc.Link("up")
	if err := s.add(filepath.Join(dir, filepath.FromSlash(previous.WellKnown)), Document{URL: s.SourceDescription, Capability: rsxml.CapDescription}); err != nil {
		return nil, err
	}
	s.addList(prev.CapabilityList, rsxml.CapCapabilityList, "", capHash, nil)
	for _, e := range capEntries {
		switch c := e.MD.Capability; c {
		case rsxml.CapChangeListNotification, rsxml.CapFrameworkNotification:
			ch := &Channel{Topic: e.Loc, Hub: e.Link("hub")}
			if ch.Hub == "" {
				return nil, fmt.Errorf("%s: the %s entry %s has no <rs:ln rel=\"hub\">", prev.CapabilityList, c, e.Loc)
			}
			if c == rsxml.CapChangeListNotification {
				s.Change = ch
			} else {
				s.Framework = ch
			}
		default:
			add := s.addDocument
			if archived[c] != "" {
				add = s.addArchive
			}
			if err := add(prev, e.Loc, c); err != nil {
				return nil, err
			}
		}
	}
	if s.Change == nil && s.Framework == nil {
		return nil, fmt.Errorf("%s: %w", prev.CapabilityList, ErrNoChannel)
	}
	return s, nil
}

// archived is what each kind of archive lists.
var archived = map[string]string{
	rsxml.CapChangeListArchive: rsxml.CapChangeList, rsxml.CapChangeDumpArchive: rsxml.CapChangeDump,
	rsxml.CapResourceListArchive: rsxml.CapResourceList, rsxml.CapResourceDumpArchive: rsxml.CapResourceDump,
}

// addArchive adds the archive at u and the documents it lists, as
// documents of the framework only: the change notification carries their
// changes from changelist.xml already.
func (s *Site) addArchive(prev *previous.Site, u, capability string) error {
	_, entries, h, err := readDoc(prev, u)
	if err != nil {
		return err
	}
	s.addList(u, capability, "", h, nil)
	listed := archived[capability]
	for _, e := range entries {
		if listed == rsxml.CapResourceList { // an archived list may be an index over parts
			if err := s.addDocument(prev, e.Loc, listed); err != nil {
				return err
			}
			continue
		}
		p, ok := prev.LocalPath(e.Loc)
		if !ok {
			return fmt.Errorf("%s lists %s, which is not a file of the output directory", u, e.Loc)
		}
		if err := s.add(p, Document{URL: e.Loc, Capability: listed}); err != nil {
			return err
		}
	}
	return nil
}

// addDocument adds the document at u (or, if it is an index, its parts),
// and the entries of a Change List.
func (s *Site) addDocument(prev *previous.Site, u, capability string) error {
	doc, entries, h, err := readDoc(prev, u)
	if err != nil {
		return err
	}
	if !doc.Index {
		s.addList(u, capability, "", h, entries)
		return nil
	}
	for _, e := range entries {
		_, parts, h, err := readDoc(prev, e.Loc)
		if err != nil {
			return err
		}
		s.addList(e.Loc, capability, u, h, parts)
	}
	return nil
}

func (s *Site) addList(u, capability, index, hash string, entries []*rsxml.Entry) {
	s.Documents = append(s.Documents, Document{URL: u, Capability: capability, Index: index, Hash: hash})
	if capability == rsxml.CapChangeList {
		for _, e := range entries {
			s.Changes = append(s.Changes, *e)
		}
	}
}

// readDoc reads the published document at u, and the digest of its bytes.
func readDoc(prev *previous.Site, u string) (*rsxml.Doc, []*rsxml.Entry, string, error) {
	p, ok := prev.LocalPath(u)
	if !ok {
		return nil, nil, "", fmt.Errorf("%s is not a file of the output directory", u)
	}
	data, err := os.ReadFile(p)
	var doc *rsxml.Doc
	var entries []*rsxml.Entry
	if err == nil {
		doc, entries, err = rsxml.ReadAll(bytes.NewReader(data), rsxml.ReadOptions{MaxBytes: previous.DefaultMaxBytes, MaxEntries: rsxml.MaxEntries})
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("reading %s: %w", p, err)
	}
	return doc, entries, digest(data), nil
}

// add adds d, the file at p, with the digest of its bytes.
func (s *Site) add(p string, d Document) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	d.Hash = digest(data)
	s.Documents = append(s.Documents, d)
	return nil
}

func digest(data []byte) string { return fmt.Sprintf("sha-256:%x", sha256.Sum256(data)) }
