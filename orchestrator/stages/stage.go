package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// Stage is one compiled stage: the steps of every host, in host order.
// It is plain data: everything the runner will do for it is in its
// fields, so a dry-run can show all of it.
// Hosts run in parallel (up to the plan's ssh.concurrency) unless Serial;
// one host's steps run in order.
type Stage struct {
	Name   string
	Serial bool // one host after another (the rolling binary swap)
	// Limit, if above 0, bounds the hosts a phase works on at once below
	// the plan's ssh.concurrency (the standbys copying one primary).
	Limit int
	Notes []string // said when the stage starts (e.g. what a flavor skips)
	Steps []Step
	// Check, if set, is the verdict the runner reaches over every host's
	// probe answers once all hosts are done (the preflight table); its
	// limits are data, shown by the dry-run.
	Check *Check
	// Search, if set, makes the stage a line search: the runner makes its
	// steps one iteration at a time from the verdicts so far.
	Search *Search

	phase int
}

// add appends steps to the stage's current phase.
func (st *Stage) add(steps ...Step) {
	for _, s := range steps {
		s.Phase = st.phase
		st.Steps = append(st.Steps, s)
	}
}

// then starts a new phase: steps added after it begin only when every
// host has finished the steps before it.
func (st *Stage) then() { st.phase++ }

// StepKind says what a step does.
type StepKind int

const (
	// Exec runs Cmd and fails on a non-zero exit.
	Exec StepKind = iota
	// Put uploads Transfer; Get downloads it.
	Put
	Get
	// Wait runs Cmd every Poll until it exits zero Settle times in a row,
	// failing after Timeout.
	Wait
	// Job starts Cmd detached on the host (it survives the orchestrator's
	// disconnect) and waits for it to finish, re-attaching on resume.
	Job
	// Local runs Cmd on this machine (merging results), in the run
	// directory; Args[0] "benchrig" is this executable.
	Local
	// Fetch puts the binary Transfer.Local at Transfer.Remote without
	// sending it from this machine when it can: the host runs FetchCmd,
	// which fetches its gzip stream from Source's server at URL, unpacks
	// it and checks Transfer.SHA256. When that fails (or there is no
	// Source) the runner uploads the stream (Upload) and runs UnpackCmd
	// (distribute.go).
	Fetch
)

// JobMode is what a Job step does.
type JobMode int

const (
	// JobWait starts the job (or re-attaches to it) and waits for its end.
	JobWait JobMode = iota
	// JobDetach starts the job unless it runs, and returns at once.
	JobDetach
	// JobStop stops the job (SIGTERM to its process group, then SIGKILL);
	// a job that is not running is left alone.
	JobStop
)

var kindNames = [...]string{"exec", "put", "get", "wait", "job", "local", "fetch"}

func (k StepKind) String() string { return kindNames[k] }

// Step is one action on one host.
type Step struct {
	Host string // plan host name; LocalHost for this machine
	// Phase orders steps across hosts within a stage: phase n+1 starts
	// when every host has finished phase n.
	Phase    int
	Kind     StepKind
	What     string // a few words for progress and state ("start node", "load warehouses 1-5")
	Cmd      remote.Cmd
	Transfer remote.Transfer
	// Wait steps.
	Poll    time.Duration
	Timeout time.Duration
	Settle  int
	// Job steps: the job's name on the host (files <dir>/jobs/<name>.*).
	JobName string
	JobDir  string
	// JobMode says what a Job step does with its job: start it and wait
	// for it (the default), start it and go on (a sampler that runs beside
	// the measured run), or stop it.
	JobMode JobMode
	// StartAt marks a job that must start at the same instant on every
	// host of the stage: the runner appends --start-at with the instant it
	// chose once every host is connected.
	StartAt bool
	// Ready puts a StartAt job behind the start barrier instead: the
	// runner gives it --ready-file and --start-file (files beside the
	// job's), waits until every host's job has written its ready file
	// (connections open and warmed) or ended, then writes one instant,
	// now + the start lead, into every ready host's start file.
	Ready bool
	// Window marks a job that is a measured run: the histogram file it
	// writes (relative to the host's directory). When such a job dies
	// before its end (killed by a signal, or gone without an exit
	// status) the runner records the host as incomplete and the run goes
	// on to collect and merge, which mark the merged result so; a job
	// that fails with its own exit status fails the step as any other.
	Window string
	// MaxRun bounds a measured run (Window) from its common start instant
	// (the start barrier's, or --start-at): its ramp, duration and
	// MeasuredRunGrace. A job still running past it is stopped and its
	// host recorded incomplete, as a death (a host whose run never ends
	// would hold the stage). Zero: no bound.
	MaxRun time.Duration
	// Positional counts the trailing positional arguments of Cmd (the
	// connection URLs); flags the runner adds go before them.
	Positional int
	// CheckExit is the exit status by which the command says "done, but
	// a benchmark check failed" (benchrig tpcc's 30): the stage goes on
	// (results are still collected) and the run ends as a failed check.
	CheckExit int
	// Verdict marks the step whose outcome (success, or CheckExit) is a
	// search iteration's pass or fail.
	Verdict bool
	// Probe names what an Exec step measures ("clock"); the Runner hands
	// its timing and output to Observe.
	Probe string
	// Idempotent marks an Exec step that is safe to run again after its
	// connection dropped mid-way (it may have run in part): a read-only
	// probe, a mkdir -p. The runner repeats such a step once the host is
	// back; one not marked stops the run with resume advice. Wait, Put,
	// Get and Job steps are safe by their kind (SafeToRepeat).
	Idempotent bool
	// Fetch steps: the plan host the binary is fetched from ("": none,
	// it is sent from this machine) and its URL there.
	Source string
	URL    string
	// Shows is what the command will do where the command line does not
	// say it (the SQL a `benchrig tpcc import` issues, an estimate),
	// computed at compile time from the same pure functions the command
	// uses; the dry-run lists it under the step. Not part of Digest: it
	// follows from the command.
	Shows string
}

// Digest identifies what the step sends: its kind, host, command (argv,
// environment, directory, stdin with secrets as placeholders), transfer
// and job, not its label or timing. A resume compares it with the digest
// the run state recorded, so a plan that compiles to different commands
// is never taken for the finished one.
func (s Step) Digest() string {
	h := sha256.New()
	args := s.Cmd.Args
	if s.Kind == Fetch {
		// Source and URL are in the command.
		args = s.FetchCmd().Args
	}
	// Encoding a struct of strings, ints and a map cannot fail; map keys
	// are sorted, so the digest is stable.
	_ = json.NewEncoder(h).Encode(struct {
		Host     string
		Kind     StepKind
		Args     []string
		Env      map[string]string
		Dir      string
		Stdin    string
		Transfer remote.Transfer
		JobName  string
		JobDir   string
	}{s.Host, s.Kind, args, s.Cmd.Env, s.Cmd.Dir, s.Cmd.Stdin, s.Transfer, s.JobName, s.JobDir})
	return hex.EncodeToString(h.Sum(nil))
}

// SafeToRepeat says whether the runner may run the step again after a
// dropped connection: a poll (Wait), a transfer (written to a temporary
// file and renamed, checked by hash), a Job (re-attached by its durable
// name, never started twice), or an Exec step marked Idempotent. Local
// steps do not cross a connection.
func (s Step) SafeToRepeat() bool {
	switch s.Kind {
	case Wait, Put, Get, Job, Fetch:
		return true
	case Exec:
		return s.Idempotent
	}
	return false
}

// OnceMarker ends the dry-run line of a remote step that is not safe to
// repeat: after a dropped connection the run stops there and says how to
// resume, where every other step is retried or re-attached by itself.
const OnceMarker = "  [once]"

// LocalHost names this machine in steps.
const LocalHost = "local"

// Display is the step as dry-run and logs show it, with the exact
// command line sent.
func (s Step) Display() string {
	return s.display(s.Cmd)
}

// Listing is Display with the constant scripts shown by name; scripts
// lists them, for the listing to print once.
func (s Step) Listing() (line string, scripts []string) {
	if s.Kind == Fetch {
		return s.fetchListing()
	}
	c, scripts := abbreviated(s.Cmd)
	line = s.display(c)
	if s.Kind == Exec && !s.SafeToRepeat() {
		line += OnceMarker
	}
	if s.Shows != "" {
		line += "\n    " + strings.ReplaceAll(strings.TrimRight(s.Shows, "\n"), "\n", "\n    ")
	}
	return line, scripts
}

func (s Step) display(c remote.Cmd) string {
	switch s.Kind {
	case Fetch:
		return s.fetchDisplay(s.FetchCmd(), s.UnpackCmd())
	case Put:
		return "put " + s.Transfer.String()
	case Get:
		return "get " + s.Transfer.DownloadString()
	case Wait:
		return "wait until ok" + settleText(s.Settle) + " (every " + plan.FormatDuration(s.Poll) + ", up to " + plan.FormatDuration(s.Timeout) + "): " + c.Display()
	case Job:
		switch s.JobMode {
		case JobDetach:
			return "detached job " + s.JobName + ": " + c.Display()
		case JobStop:
			return "stop job " + s.JobName
		}
		return "job " + s.JobName + ": " + c.Display()
	}
	return c.Display()
}

func settleText(n int) string {
	if n <= 1 {
		return ""
	}
	return " " + strconv.Itoa(n) + " times in a row"
}

// HostSteps groups steps by host, hosts in first-seen order.
func HostSteps(list []Step) (hosts []string, steps map[string][]Step) {
	steps = map[string][]Step{}
	for _, s := range list {
		if _, ok := steps[s.Host]; !ok {
			hosts = append(hosts, s.Host)
		}
		steps[s.Host] = append(steps[s.Host], s)
	}
	return hosts, steps
}
