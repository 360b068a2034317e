package rundir

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/benchrig/benchrig/internal/termsafe"
)

// StatusSchema versions the document of `benchrig status --json`.
const StatusSchema = "benchrig.status/v1"

// View is a run's status as `benchrig status --json` prints it: the
// state file's stages and hosts, whether a benchrig process drives the
// run now, the current stage, and the run stage's live throughput
// (live.json) when there is one. docs/schema/status.v1.json describes it.
type View struct {
	Schema  string    `json:"schema"`
	RunDir  string    `json:"run_dir"`
	Plan    string    `json:"plan"`
	Created time.Time `json:"created"`
	// Driven: a live benchrig process holds the run (pid Pid).
	Driven bool `json:"driven"`
	Pid    int  `json:"pid,omitempty"`
	// Current is the running stage, else the last one that started ("" if
	// none did); Finished says every stage is done.
	Current  string      `json:"current_stage"`
	Finished bool        `json:"finished"`
	Failed   bool        `json:"failed"`
	Stages   []StageView `json:"stages"`
	Live     *Live       `json:"live,omitempty"`
}

// StageView is one stage: its state and a count of its hosts.
type StageView struct {
	Name      string     `json:"name"`
	Status    string     `json:"status"`
	Started   *time.Time `json:"started,omitempty"`
	Finished  *time.Time `json:"finished,omitempty"`
	HostsDone int        `json:"hosts_done"`
	Hosts     []HostView `json:"hosts"`
}

// HostView is one host's progress in a stage.
type HostView struct {
	Host     string     `json:"host"`
	Status   string     `json:"status"`
	Steps    int        `json:"steps"`
	Done     int        `json:"done"`
	Started  *time.Time `json:"started,omitempty"`
	Finished *time.Time `json:"finished,omitempty"`
	Current  string     `json:"current,omitempty"` // the step under way
	Error    string     `json:"error,omitempty"`
	// Unreachable is set while the run redials the host.
	Unreachable *Outage `json:"unreachable,omitempty"`
	// Died is set when the host's measured run died: the run's result
	// is incomplete (resume --from run measures again).
	Died *Died `json:"died,omitempty"`
}

// NewView reads runDir's state, lock and live files.
func NewView(runDir string) (*View, error) {
	st, err := ReadState(runDir + "/" + StateFile)
	if err != nil {
		return nil, err
	}
	v := &View{Schema: StatusSchema, RunDir: runDir, Plan: st.Plan, Created: st.Created, Finished: len(st.Stages) > 0, Stages: []StageView{}}
	v.Pid, v.Driven = Driven(runDir)
	if !v.Driven {
		v.Pid = 0
	}
	for _, s := range st.Stages {
		sv := StageView{Name: s.Name, Status: s.Status, Started: s.Started, Finished: s.Finished, Hosts: []HostView{}}
		for _, h := range s.Hosts {
			if h.Status == Done {
				sv.HostsDone++
			}
			sv.Hosts = append(sv.Hosts, neutral(HostView{Host: h.Host, Status: h.Status, Steps: h.Steps, Done: h.Done,
				Started: h.Started, Finished: h.Finished, Current: h.Current, Error: h.Error, Unreachable: h.Unreachable, Died: h.Died}))
		}
		switch s.Status {
		case Failed:
			v.Failed = true
		}
		if s.Status != Done {
			v.Finished = false
		}
		if s.Status != Pending {
			v.Current = s.Name // the last that started
		}
		v.Stages = append(v.Stages, sv)
	}
	for _, s := range st.Stages {
		if s.Status == Running {
			v.Current = s.Name
		}
	}
	if l, err := ReadLive(runDir); err == nil && l != nil {
		for i := range l.Hosts {
			l.Hosts[i].Error = termsafe.String(l.Hosts[i].Error)
		}
		v.Live = l
	}
	return v, nil
}

// neutral is h with every string that may quote a host (an error with its
// stderr, a death's reason, an outage's error) made terminal-safe as the
// console and the watch make them (termsafe.String): a program that
// prints `status --json`'s strings (jq -r) shows a host's escape
// sequences and bidi overrides as text. Markup is left to JSON's own
// escaping (<, > and & as \u003c, \u003e, \u0026) and to the consumer.
func neutral(h HostView) HostView {
	h.Current, h.Error = termsafe.String(h.Current), termsafe.String(h.Error)
	if h.Unreachable != nil {
		o := *h.Unreachable
		o.Error = termsafe.String(o.Error)
		h.Unreachable = &o
	}
	if h.Died != nil {
		d := *h.Died
		d.Step, d.Job, d.Window, d.Reason = termsafe.String(d.Step), termsafe.String(d.Job), termsafe.String(d.Window), termsafe.String(d.Reason)
		h.Died = &d
	}
	return h
}

// Over says the run will not change any more: no process drives it.
func (v *View) Over() bool { return !v.Driven }

// stage returns the named stage's view.
func (v *View) stage(name string) *StageView {
	for i := range v.Stages {
		if v.Stages[i].Name == name {
			return &v.Stages[i]
		}
	}
	return nil
}

// Line is the view as one plain line, for a log or a pipe: time, stage,
// hosts done and their current steps, live tpmC.
func (v *View) Line(now time.Time) string {
	var b strings.Builder
	b.WriteString(now.Local().Format("15:04:05"))
	s := v.stage(v.Current)
	switch {
	case s == nil:
		b.WriteString(" not started")
	default:
		fmt.Fprintf(&b, " stage %s %s: %d/%d hosts done", s.Name, s.Status, s.HostsDone, len(s.Hosts))
		var busy []string
		for _, h := range s.Hosts {
			switch {
			case h.Status == Running && h.Unreachable != nil:
				busy = append(busy, h.Unreachable.Text(h.Host, now)+": "+h.Current)
			case h.Status == Running && h.Current != "":
				busy = append(busy, fmt.Sprintf("%s %d/%d %s", h.Host, h.Done, h.Steps, h.Current))
			case h.Status == Running:
				busy = append(busy, fmt.Sprintf("%s %d/%d waiting for the other hosts", h.Host, h.Done, h.Steps))
			case h.Status == Failed:
				busy = append(busy, h.Host+" failed")
			}
		}
		if len(busy) > 0 {
			b.WriteString(" (" + strings.Join(busy, "; ") + ")")
		}
	}
	if l := v.Live; l != nil && v.Current == "run" {
		b.WriteString("; " + liveText(l))
	}
	switch {
	case v.Finished:
		b.WriteString("; run finished")
	case !v.Driven:
		b.WriteString("; no benchrig process drives it (resume it to go on)")
	}
	return b.String()
}

func liveText(l *Live) string {
	if l.TpmC == 0 {
		return "tpmC: no measured tick yet (ramp-up)"
	}
	hosts := make([]string, 0, len(l.Hosts))
	for _, h := range l.Hosts {
		hosts = append(hosts, fmt.Sprintf("%s %.1f", h.Host, h.TpmC))
	}
	sort.Strings(hosts)
	round := ""
	if l.Round != "" {
		round = " round " + l.Round
	}
	return fmt.Sprintf("tpmC %.1f%s (%s)", l.TpmC, round, strings.Join(hosts, ", "))
}

// PrintWatch writes the full view for a refreshing terminal: the stage
// table, the current stage's hosts and the live throughput.
func PrintWatch(w io.Writer, v *View, st *State, now time.Time) error {
	if err := PrintStatus(w, st, false); err != nil {
		return err
	}
	if s := v.stage(v.Current); s != nil && len(s.Hosts) > 0 {
		fmt.Fprintf(w, "\nstage %s:\n", s.Name)
		for _, h := range s.Hosts {
			what := firstNonEmpty(h.Error, h.Current)
			fmt.Fprintf(w, "  %-14s %-8s %3d/%-3d %s\n", h.Host, h.Status, h.Done, h.Steps, what)
		}
	}
	if l := v.Live; l != nil && v.Current == "run" {
		fmt.Fprintf(w, "\nlive: %s, updated %s\n", liveText(l), l.Updated.Local().Format("15:04:05"))
	}
	state := "driven by benchrig pid " + fmt.Sprint(v.Pid)
	switch {
	case v.Finished:
		state = "finished"
	case !v.Driven:
		state = "stopped: no benchrig process drives it (benchrig resume " + v.RunDir + ")"
	}
	fmt.Fprintf(w, "\n%s: %s\n", now.Local().Format("15:04:05"), state)
	return nil
}
