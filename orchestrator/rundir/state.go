package rundir

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// StateFormat identifies a run state file; a file without it is refused.
const StateFormat = "benchrig-run-state/1"

// Step and stage statuses in the state file.
const (
	Pending = "pending"
	Running = "running"
	Done    = "done"
	Failed  = "failed"
)

// State is a run's durable progress: for every stage and host, how many
// of the host's steps are done. It is rewritten atomically (temp file,
// fsync, rename, fsync of the directory) after every step, so a run
// killed at any instant resumes from what the file says. It holds no
// secret: errors are scrubbed of revealed secrets before they get here.
type State struct {
	Format  string       `json:"format"`
	Plan    string       `json:"plan"` // the plan file as given to run
	PlanSum string       `json:"plan_sha256"`
	Created time.Time    `json:"created"`
	Options StateOptions `json:"options"`
	Stages  []StageState `json:"stages"`

	path string
	mu   sync.Mutex
}

// StateOptions are the compile options a resume must reuse.
type StateOptions struct {
	Only          []string `json:"only,omitempty"`
	From          string   `json:"from,omitempty"`
	Until         string   `json:"until,omitempty"`
	DriverPath    string   `json:"driver_path,omitempty"`
	SkipPreflight bool     `json:"skip_preflight,omitempty"`
}

// StageState is one stage's progress.
type StageState struct {
	Name     string      `json:"name"`
	Status   string      `json:"status"`
	Started  *time.Time  `json:"started,omitempty"`
	Finished *time.Time  `json:"finished,omitempty"`
	Hosts    []HostState `json:"hosts"`
	// Search holds a search stage's verdicts, so a resumed search does not
	// run a finished iteration again.
	Search []stages.SearchPoint `json:"search,omitempty"`
}

// HostState is one host's progress in a stage.
type HostState struct {
	Host     string     `json:"host"`
	Status   string     `json:"status"`
	Steps    int        `json:"steps"`
	Done     int        `json:"done"`    // steps finished, in order
	Attempt  int        `json:"attempt"` // bumped when a stage is forced to rerun
	Started  *time.Time `json:"started,omitempty"`
	Finished *time.Time `json:"finished,omitempty"`
	Error    string     `json:"error,omitempty"`
	// Current is the step under way, for status and for re-attaching to
	// a detached job.
	Current string `json:"current,omitempty"`
	// Unreachable, while set, says the host dropped its connection during
	// Current and the run is redialing it.
	Unreachable *Outage `json:"unreachable,omitempty"`
	// Died, once set, says the host's measured run died before the
	// window's end (killed, or gone without an exit status): the run
	// went on, the merged result is marked incomplete, and a resume
	// --from the stage measures again on every host.
	Died *Died `json:"died,omitempty"`
	// Digests are the host's steps' Step.Digest as compiled when the run
	// started (or when a resume was forced onto a changed plan): a resume
	// compiles the plan again and refuses if a step is no longer the one
	// the state describes.
	Digests []string `json:"digests,omitempty"`
}

// Died is a host's measured run that died (runner.Death).
type Died struct {
	Step   string    `json:"step"`
	Job    string    `json:"job"`
	Window string    `json:"window"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Deaths are the measured runs the state records as died, for a resumed
// runner (runner.Deaths).
func (s *State) Deaths() []runner.Death {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []runner.Death
	for _, st := range s.Stages {
		for _, h := range st.Hosts {
			if d := h.Died; d != nil {
				out = append(out, runner.Death{Stage: st.Name, Host: h.Host, Step: d.Step, Job: d.Job, Window: d.Window, Reason: d.Reason})
			}
		}
	}
	return out
}

// Outage is a host away during a step: since when, how many redials so
// far, until when the run waits for it (the reconnect budget's end).
type Outage struct {
	Since    time.Time `json:"since"`
	Attempts int       `json:"attempts"`
	Until    time.Time `json:"until"`
	Error    string    `json:"error,omitempty"`
}

// Text is the outage as console and status say it, budget left counted
// from now.
func (o *Outage) Text(host string, now time.Time) string {
	return runner.UnreachableText(host, o.Since, o.Attempts, max(o.Until.Sub(now), 0))
}

// NewState describes compiled stages as all pending.
func NewState(path, plan, planSum string, opt StateOptions, list []stages.Stage, now time.Time) *State {
	s := &State{Format: StateFormat, Plan: plan, PlanSum: planSum, Created: now.UTC(), Options: opt, path: path}
	for _, st := range list {
		ss := StageState{Name: st.Name, Status: Pending}
		hosts, steps := stages.HostSteps(st.Steps)
		for _, h := range hosts {
			ss.Hosts = append(ss.Hosts, HostState{Host: h, Status: Pending, Steps: len(steps[h]), Digests: digests(steps[h])})
		}
		s.Stages = append(s.Stages, ss)
	}
	return s
}

// ReadState loads a state file. A truncated, foreign or newer file is an
// error that says so, rather than a run that starts over.
func ReadState(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("run state: %w", err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("run state %s is damaged (truncated or not JSON): %w", path, err)
	}
	if s.Format != StateFormat {
		return nil, fmt.Errorf("run state %s: format %q, want %q: not a benchrig run directory, or written by another version", path, s.Format, StateFormat)
	}
	s.path = path
	return &s, nil
}

// Matches checks that compiled stages are the ones the state describes,
// host for host and step count for step count.
func (s *State) Matches(list []stages.Stage) error {
	if len(list) != len(s.Stages) {
		return fmt.Errorf("the plan compiles to %d stages, the run state has %d: the plan changed since the run started", len(list), len(s.Stages))
	}
	for i, st := range list {
		ss := s.Stages[i]
		hosts, steps := stages.HostSteps(st.Steps)
		if st.Name != ss.Name || len(hosts) != len(ss.Hosts) {
			return fmt.Errorf("stage %d is %s with %d hosts in the plan, %s with %d hosts in the run state", i, st.Name, len(hosts), ss.Name, len(ss.Hosts))
		}
		for j, h := range hosts {
			if ss.Hosts[j].Host != h || ss.Hosts[j].Steps != len(steps[h]) {
				return fmt.Errorf("stage %s: host %s has %d steps in the plan, the run state has host %s with %d", st.Name, h, len(steps[h]), ss.Hosts[j].Host, ss.Hosts[j].Steps)
			}
		}
	}
	return nil
}

func digests(steps []stages.Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Digest()
	}
	return out
}

// Changes lists, briefly, the steps that compile differently from what the
// state recorded: one line per stage, naming its hosts and steps, finished
// ones first. It assumes Matches (same stages, hosts and step counts); a
// state written before digests were recorded has nothing to compare.
func (s *State) Changes(list []stages.Stage) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, st := range list {
		if i >= len(s.Stages) {
			break
		}
		hosts, steps := stages.HostSteps(st.Steps)
		var finished, later, changedHosts []string
		seen := map[string]bool{}
		for _, h := range hosts {
			hs := s.host(i, h)
			if hs == nil {
				continue
			}
			changed := false
			for n, step := range steps[h] {
				if n >= len(hs.Digests) || hs.Digests[n] == "" || hs.Digests[n] == step.Digest() {
					continue
				}
				changed = true
				if seen[step.What] {
					continue
				}
				seen[step.What] = true
				if n < hs.Done {
					finished = append(finished, strconv.Quote(step.What))
				} else {
					later = append(later, strconv.Quote(step.What))
				}
			}
			if changed {
				changedHosts = append(changedHosts, h)
			}
		}
		if len(changedHosts) == 0 {
			continue
		}
		line := fmt.Sprintf("stage %s, %s: ", st.Name, listSome("host", changedHosts))
		var parts []string
		if len(finished) > 0 {
			parts = append(parts, "finished "+listSome("step", finished))
		}
		if len(later) > 0 {
			parts = append(parts, "not yet run "+listSome("step", later))
		}
		out = append(out, line+strings.Join(parts, "; "))
	}
	return out
}

// Rebase records the digests of stages as the ones the state describes
// (a resume forced onto a changed plan) with the plan's new sha256.
func (s *State) Rebase(list []stages.Stage, planSum string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.PlanSum = planSum
	for i, st := range list {
		_, steps := stages.HostSteps(st.Steps)
		for k := range s.Stages[i].Hosts {
			h := &s.Stages[i].Hosts[k]
			h.Digests = digests(steps[h.Host])
		}
	}
	return s.saveLocked()
}

// listSome names up to three items and counts the rest.
func listSome(kind string, items []string) string {
	const show = 3
	text := strings.Join(items[:min(len(items), show)], ", ")
	if len(items) > show {
		text += fmt.Sprintf(" and %d more", len(items)-show)
	}
	if len(items) == 1 {
		return kind + " " + text
	}
	return kind + "s " + text
}

// Restart marks stage name and every later one pending, for --from.
func (s *State) Restart(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.Stages {
		if s.Stages[i].Name != name {
			continue
		}
		for j := i; j < len(s.Stages); j++ {
			st := &s.Stages[j]
			st.Status, st.Started, st.Finished, st.Search = Pending, nil, nil, nil
			for k := range st.Hosts {
				h := &st.Hosts[k]
				h.Status, h.Done, h.Error, h.Current, h.Started, h.Finished, h.Died = Pending, 0, "", "", nil, nil, nil
				h.Attempt++
			}
		}
		return s.saveLocked()
	}
	return fmt.Errorf("--from %s: the run has no such stage", name)
}

// host returns the state of host h in stage i.
func (s *State) host(i int, h string) *HostState {
	for k := range s.Stages[i].Hosts {
		if s.Stages[i].Hosts[k].Host == h {
			return &s.Stages[i].Hosts[k]
		}
	}
	return nil
}

// StageDone says stage i finished in an earlier attempt.
func (s *State) StageDone(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Stages[i].Status == Done
}

// StepsDone is how many of host h's steps of stage i are done.
func (s *State) StepsDone(i int, h string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hs := s.host(i, h); hs != nil {
		return hs.Done
	}
	return 0
}

// Attempt counts the forced reruns of stage i on host h.
func (s *State) Attempt(i int, h string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hs := s.host(i, h); hs != nil {
		return hs.Attempt
	}
	return 0
}

// SearchPoints are stage i's search verdicts so far.
func (s *State) SearchPoints(i int) []stages.SearchPoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]stages.SearchPoint(nil), s.Stages[i].Search...)
}

// Observe records a runner event and saves the state when it changed, so
// that a run killed at any instant resumes from its last finished step.
func (s *State) Observe(e runner.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.StageIndex < 0 || e.StageIndex >= len(s.Stages) {
		return nil // not about a stage of this run (a message)
	}
	ss := &s.Stages[e.StageIndex]
	t := e.Time
	switch e.Kind {
	case runner.StageStarted:
		ss.Status = Running
		if ss.Started == nil {
			ss.Started = &t
		}
	case runner.StageDone:
		ss.Status, ss.Finished = Done, &t
	case runner.StageFailed:
		ss.Status = Failed
		if e.Reset {
			for k := range ss.Hosts {
				ss.Hosts[k].Done, ss.Hosts[k].Status, ss.Hosts[k].Error = 0, Failed, e.Err.Error()
			}
		}
	case runner.StepStarted, runner.StepDone, runner.StepFailed:
		hs := s.host(e.StageIndex, e.Host)
		if e.Index < 0 || hs == nil {
			return nil // a search iteration's step: its verdict is the resume point
		}
		hs.Unreachable = nil
		switch e.Kind {
		case runner.StepStarted:
			hs.Status, hs.Current, hs.Error = Running, e.Step.What, ""
			if hs.Started == nil {
				hs.Started = &t
			}
		case runner.StepDone:
			// Current names a step under way: a host waiting for the
			// next phase (its sampler started, the others' runs not
			// finished) has none.
			hs.Done, hs.Current = e.Index+1, ""
			if d := e.Died; d != nil {
				hs.Died = &Died{Step: d.Step, Job: d.Job, Window: d.Window, Reason: d.Reason, At: t.UTC()}
			}
			for len(hs.Digests) < hs.Steps {
				hs.Digests = append(hs.Digests, "")
			}
			if e.Index < len(hs.Digests) {
				hs.Digests[e.Index] = e.Digest
			}
			if hs.Done >= hs.Steps {
				hs.Status, hs.Current, hs.Finished = Done, "", &t
			}
		case runner.StepFailed:
			hs.Status, hs.Error = Failed, errorText(e.Err)
		}
	case runner.HostUnreachable, runner.HostReconnected:
		hs := s.host(e.StageIndex, e.Host)
		if hs == nil {
			return nil
		}
		hs.Unreachable = nil
		if e.Kind == runner.HostUnreachable {
			hs.Unreachable = &Outage{Since: e.Since.UTC(), Attempts: e.Attempt, Until: e.Time.Add(e.BudgetLeft).UTC(), Error: errorText(e.Err)}
		}
	case runner.SearchVerdict:
		if e.Earlier {
			return nil
		}
		ss.Search = append(ss.Search, e.Point)
	default:
		return nil
	}
	return s.saveLocked()
}

// errorText is a step error's message without the stage and host the
// state file already names.
func errorText(err error) string {
	var se *runner.StepError
	if errors.As(err, &se) {
		return se.Message()
	}
	return err.Error()
}

// Save writes the state atomically.
func (s *State) Save() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saveLocked()
}

func (s *State) saveLocked() error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.path, append(data, '\n'))
}

// writeAtomic replaces path with data so that a reader (or a crash) sees
// the old file or the new one, never a mix.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// LockedError is a run directory another live process owns.
type LockedError struct {
	Dir string
	Pid int // 0 if the holder's pid could not be read
}

func (e *LockedError) Error() string {
	if e.Pid > 0 {
		return fmt.Sprintf("run %s is in use by benchrig pid %d (a run or resume still going); wait for it or stop it first", e.Dir, e.Pid)
	}
	return fmt.Sprintf("run %s is in use by another benchrig process", e.Dir)
}

// Lock takes the run directory's lock, so that two orchestrators never
// drive the same run, and writes this process's pid into it for the one
// that is refused. The lock is an flock(2) on runDir/lock: the kernel
// drops it when the holder exits, however it dies, so a lock file left by
// a killed run never blocks a resume. It is released when the process
// ends or release is called.
func Lock(runDir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(runDir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			le := &LockedError{Dir: runDir}
			if b, rerr := io.ReadAll(f); rerr == nil {
				le.Pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			return nil, le
		}
		return nil, fmt.Errorf("lock run %s: %w", runDir, err)
	}
	// The pid is written under the lock: a reader that is refused sees the
	// holder's, never a stale one (a refused reader never writes).
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock run %s: %w", runDir, err)
	}
	return func() { f.Close() }, nil
}

// NewRunDir makes a new run directory in runs: name-<UTC time>-<random
// suffix>, created with mkdir(2), which fails if the name exists, so two
// runs started in the same second (or on two machines sharing runs/) never
// share a directory. rnd is the randomness (crypto/rand.Reader).
func NewRunDir(runs, name string, now time.Time, rnd io.Reader) (string, error) {
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return "", err
	}
	stamp := now.UTC().Format("20060102-150405")
	var b [3]byte
	for range 20 {
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return "", fmt.Errorf("run directory: %w", err)
		}
		dir := filepath.Join(runs, fmt.Sprintf("%s-%s-%s", name, stamp, hex.EncodeToString(b[:])))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("run directory: no free name for %s-%s in %s", name, stamp, runs)
}
