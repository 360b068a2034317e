package runner

import (
	"fmt"
	"path"
	"strings"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/runspec"
)

// A measured run's job (a Job step with a Window) that dies before its
// end is not a failure of the step: its host keeps what it measured up to
// its death, the other hosts carry on to the end of their window, collect
// gathers every host's files and merge marks the result incomplete. The
// run then ends with an *IncompleteError that says how to measure again:
// `benchrig resume --from run DIR` runs the stage again on every workload
// host, so the windows align. Starting only the dead job again would
// measure a window the other hosts did not share.
//
// "Died" is: gone without an exit status (its process group was killed,
// the host restarted), or the command killed by a signal (exit 128+n, as
// sh reports it). A job that exited with its own status (an audit
// failure's 30, a connection error's 1) fails or passes as before.

// Death is one measured run that died.
type Death struct {
	Stage, Host, Step, Job string
	// Window is the step's histogram file (stages.Step.Window).
	Window string
	// Reason says how it died: "killed (SIGKILL)", "vanished without exit
	// status".
	Reason string
}

func (d Death) String() string {
	return fmt.Sprintf("stage %s: host %s: %s: job %s %s", d.Stage, d.Host, d.Step, d.Job, d.Reason)
}

// IncompleteError ends a run in which measured runs died: every stage ran
// (the result was collected and merged, marked incomplete), but the
// result is not the run's.
type IncompleteError struct {
	Deaths []Death
	// Checks are benchmark checks that failed besides (CheckFailedError).
	Checks []string
	// RunDir, when set, completes the advice.
	RunDir string
}

func (e *IncompleteError) Error() string {
	var b strings.Builder
	b.WriteString("the measured window is incomplete: ")
	for i, d := range e.Deaths {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	b.WriteString("; the merged result is marked incomplete")
	if len(e.Checks) > 0 {
		b.WriteString(" (and benchmark checks failed: " + strings.Join(e.Checks, "; ") + ")")
	}
	dir := e.RunDir
	if dir == "" {
		dir = "RUN_DIR"
	}
	stage := "run"
	if len(e.Deaths) > 0 && e.Deaths[0].Stage != "" {
		stage = e.Deaths[0].Stage
	}
	b.WriteString("; measure again on every workload host with: benchrig resume --from " + stage + " " + dir)
	return b.String()
}

// diedError is what driveJob returns for a measured run's job that died.
type diedError struct {
	job    string
	reason string
}

func (e *diedError) Error() string { return "job " + e.job + " " + e.reason }

// deathOf says how a finished job died, "" if it ended by itself.
func deathOf(st remote.JobStatus) string {
	switch {
	case st.State == remote.JobLost:
		return "vanished without exit status (its process group was killed, or the host restarted)"
	case st.State == remote.JobExited && st.ExitCode > 128 && st.ExitCode <= 128+64:
		return "killed (" + signalName(st.ExitCode-128) + ")"
	}
	return ""
}

// signalName is the name of Linux signal n.
func signalName(n int) string {
	names := map[int]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
		8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}
	if s, ok := names[n]; ok {
		return s
	}
	return fmt.Sprintf("signal %d", n)
}

// Deaths is an optional Progress capability: the measured runs an earlier
// attempt saw die (the state file keeps them), so that a resumed collect
// tolerates their missing files and the resumed run still ends
// incomplete.
type Deaths interface {
	Deaths() []Death
}

// deadFile says whether a file a Get step downloads from host belongs to
// a measured run that died there: its histogram file, or a file beside it
// of the same stem (workload1.result.json beside
// workload1.histogram.ndjson), which a dead job may never have written.
func (r *Runner) deadFile(host, remotePath string) (Death, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	base := path.Base(remotePath)
	for _, d := range r.deaths {
		if d.Host != host || d.Window == "" {
			continue
		}
		stem, _, _ := runspec.HistogramStem(path.Base(d.Window))
		stem += "."
		if base == path.Base(d.Window) || strings.HasPrefix(base, stem) {
			return d, true
		}
	}
	return Death{}, false
}
