package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

const (
	stateVersion  = 1
	maxStateBytes = 64 << 20 // one line per published document
)

// State is what the last successful run notified, kept in a JSON file.
type State struct {
	Version        int                 `json:"version"`
	CapabilityList string              `json:"capability_list"`
	At             string              `json:"at,omitempty"`            // the Resource List's at when notified
	ChangesUntil   string              `json:"changes_until,omitempty"` // the newest change notified
	Documents      map[string]docState `json:"documents"`
	// FrameworkTopic and Hub are the framework channel notified, where
	// the deletion of the whole set is said once it is gone.
	FrameworkTopic string `json:"framework_topic,omitempty"`
	Hub            string `json:"hub,omitempty"`
	// Sets are the states of each resource set of a build of several,
	// by name; the fields above are then empty.
	Sets map[string]*State `json:"sets,omitempty"`
}

type docState struct {
	Capability string `json:"capability"`
	Index      string `json:"index,omitempty"`
	Hash       string `json:"hash"`
}

// ErrBadState reports a file that is not a state file rsgen can use.
var ErrBadState = errors.New("not a state file of rsgen notify")

// loadState reads the state file at path; (nil, nil) if there is none.
func loadState(path string) (*State, error) {
	f, _, err := regfile.Open(path) // a FIFO is refused, not waited on
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	var st State
	bad := func(err error) error { return fmt.Errorf("reading %s: %w: %v", path, ErrBadState, err) }
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", path, err)
	case len(data) > maxStateBytes:
		return nil, bad(fmt.Errorf("larger than %d bytes", maxStateBytes))
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, bad(err)
	}
	if err := st.check(""); err != nil {
		return nil, bad(err)
	}
	for _, name := range slices.Sorted(maps.Keys(st.Sets)) {
		s := st.Sets[name]
		if s == nil || s.Sets != nil || s.CapabilityList == "" {
			return nil, bad(fmt.Errorf("the set %q is not the state of one set", name))
		}
		if err := s.check(fmt.Sprintf("the set %q: ", name)); err != nil {
			return nil, bad(err)
		}
	}
	if st.CapabilityList == "" && len(st.Sets) == 0 {
		return nil, bad(errors.New("the state of no Capability List and no set"))
	}
	return &st, nil
}

func (st *State) check(what string) error {
	if st.Version != stateVersion {
		return fmt.Errorf("%sversion %d, this rsgen reads version %d", what, st.Version, stateVersion)
	}
	for name, v := range map[string]string{"at": st.At, "changes_until": st.ChangesUntil} {
		if _, err := rsxml.ParseTime(v); v != "" && err != nil {
			return fmt.Errorf("%s%s: %v", what, name, err)
		}
	}
	return nil
}

// Save writes the state to path atomically (confined.Replace). A link at
// path is followed only to a state file.
func (st *State) Save(path string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	target, err := confined.Resolve(path)
	if err == nil && target != path {
		_, err = loadState(target)
	}
	var rep *confined.Replacement
	if err == nil {
		rep, err = confined.Replace(target, "."+filepath.Base(target)+".*.tmp")
	}
	if err == nil {
		if _, err = rep.File.Write(append(data, '\n')); err != nil {
			rep.Abort()
		} else {
			err = rep.Commit()
		}
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func newState(s *Site) *State {
	st := &State{Version: stateVersion, CapabilityList: s.CapabilityList, At: s.At, Documents: map[string]docState{}}
	if s.Framework != nil {
		st.FrameworkTopic, st.Hub = s.Framework.Topic, s.Framework.Hub
	}
	for _, d := range s.Documents {
		st.Documents[d.URL] = docState{Capability: d.Capability, Index: d.Index, Hash: d.Hash}
	}
	var newest time.Time
	for i := range s.Changes {
		if t, ok := changeTime(&s.Changes[i]); ok && t.After(newest) {
			newest = t
		}
	}
	if !newest.IsZero() {
		st.ChangesUntil = rsxml.FormatTime(newest)
	}
	return st
}

// changeTime is the datetime of a Change List entry (1.1), or its lastmod (0.9.1).
func changeTime(e *rsxml.Entry) (time.Time, bool) {
	v := e.MD.Datetime
	if v == "" {
		v = e.Lastmod
	}
	t, err := rsxml.ParseTime(v)
	return t, err == nil
}
