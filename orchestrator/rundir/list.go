package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Run is one run directory as a listing shows it.
type Run struct {
	Dir     string
	Plan    string    // the plan file the run started from
	Created time.Time // when it started
	// Status is the first stage that is not done, with its status
	// ("run failed", "import running"), or "done".
	Status string
	Err    error // the state could not be read (a run still being made, or damaged)
}

// List returns the run directories under runsDir, newest first. A
// directory without a readable state is listed with its error, not
// skipped: it is still something the user made.
func List(runsDir string) ([]Run, error) {
	entries, err := os.ReadDir(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(runsDir, e.Name())
		r := Run{Dir: dir}
		st, err := ReadState(filepath.Join(dir, StateFile))
		if err != nil {
			r.Err = err
			if info, ierr := e.Info(); ierr == nil {
				r.Created = info.ModTime()
			}
			out = append(out, r)
			continue
		}
		r.Plan, r.Created, r.Status = st.Plan, st.Created, st.summary()
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}

// summary is the first unfinished stage and its status, or "done".
func (s *State) summary() string {
	for _, st := range s.Stages {
		if st.Status != Done {
			return st.Name + " " + st.Status
		}
	}
	return Done
}
