package orchestrator

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/benchrig/benchrig/internal/termsafe"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// Options say how to run a plan.
type Options struct {
	// Out gets the console; ErrOut warnings and the resume hint.
	Out, ErrOut io.Writer
	// DryRun lists what would be sent to every host and contacts nothing.
	DryRun bool
	// Only, From and Until select stages; SkipPreflight leaves preflight
	// out; DriverPath is the benchrig binary for workload hosts (default:
	// this executable).
	Only          []string
	From, Until   string
	SkipPreflight bool
	DriverPath    string
	// StartLead is how far ahead the common start instant is set.
	StartLead time.Duration
	// RunsDir is where run directories are made.
	RunsDir string
	// Connect are the SSH options of the command line.
	Connect Connect
	// Version is written into the report.
	Version string
	// Force lets a resume go on though the run's plan copy or its
	// compiled steps changed since they ran.
	Force bool
	// AllowSettings are the denied database settings the operator lets
	// the plan set (--allow-setting; plan.Options).
	AllowSettings []string
	// Verbose streams every host's output to Out as it runs (it always
	// goes to the run directory's output.log and logs/<stage>/<host>.log).
	Verbose bool
	// Terminal says Out is a terminal: the console draws progress bars.
	Terminal bool
	// ReconnectBudget, if set, overrides the plan's ssh.reconnect_budget:
	// how long a host may stay unreachable while a step waits on it.
	// Negative turns re-attaching off.
	ReconnectBudget time.Duration
}

// Connect holds the command line's SSH options, over the plan's.
type Connect struct {
	KnownHosts        string `flag:"known-hosts" usage:"known_hosts FILE (default: the plan's, else ~/.ssh/known_hosts)" arg:"FILE"`
	AcceptNewHostKeys bool   `flag:"accept-new-host-keys" usage:"add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused"`
	// CreateKnownHosts lets accept-new create a known_hosts file that
	// does not exist (see remote.SSHConfig.CreateKnownHosts).
	CreateKnownHosts bool   `flag:"create-known-hosts" usage:"with --accept-new-host-keys, create the known_hosts file if it does not exist (only ~/.ssh/known_hosts is created without it)"`
	Identity         string `flag:"identity,i" usage:"private key FILE to offer (after ssh-agent's keys)" arg:"FILE"`
	// Progress, if set, gets transfer progress bars (a terminal).
	Progress io.Writer
}

// LoadPlan reads, normalizes and validates a plan file; a problem in it is
// a *PlanError. A file that cannot be read at all (missing, a directory,
// no permission) is a *UsageError: the command line named the wrong
// thing, the plan itself is not at fault.
func LoadPlan(file string, opts ...plan.Options) (*plan.Plan, error) {
	p, err := plan.LoadPlan(file, opts...)
	return p, usageIfUnread(err)
}

// usageIfUnread makes an error that is not a problem of the plan (the
// file could not be read at all) a *UsageError.
func usageIfUnread(err error) error {
	var pe *PlanError
	if err != nil && !errors.As(err, &pe) {
		return &UsageError{err}
	}
	return err
}

// Show writes a plan's expanded topology.
func Show(w io.Writer, p *plan.Plan) error { return stages.Show(w, p) }

// ShowJSON writes the expanded plan as JSON (benchrig.plan/v1).
func ShowJSON(w io.Writer, p *plan.Plan) error { return stages.ShowJSON(w, p) }

// Run compiles the plan file and runs it in a new run directory, or with
// DryRun lists it.
func Run(ctx context.Context, file string, o Options) error {
	// Read once: the bytes validated are the bytes the run directory
	// keeps and hashes.
	data, err := plan.ReadPlanFile(file)
	if err != nil {
		return usageIfUnread(err)
	}
	// A dry-run only looks: it prints the licence's reference, never its
	// value, so it does not read it (a real run does, at validation).
	p, err := plan.ParsePlan(file, data, plan.Options{AllowSettings: o.AllowSettings, Unresolved: o.DryRun})
	if err != nil {
		return err
	}
	copt := stages.Options{Only: o.Only, From: o.From, Until: o.Until, DriverPath: o.DriverPath, SkipPreflight: o.SkipPreflight}
	list, err := stages.Compile(p, copt)
	if err != nil {
		return &UsageError{err}
	}
	if err := PinUploads(list); err != nil {
		return err
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "dry run of plan %s (%s): nothing is contacted; each line is what would be sent to that host\n", p.Name, file)
		fmt.Fprintf(o.Out, "steps marked%s are not repeated after a dropped connection (the run stops and says how to resume); the others redial and repeat or re-attach by themselves\n", stages.OnceMarker)
		r := &runner.Runner{
			Exec:      remote.NewRecorder(),
			Observers: []runner.Observer{&runner.Console{W: o.Out, Listing: true}},
			Limit:     p.SSH.Concurrency,
			StartLead: o.StartLead,
			Sleep:     func(context.Context, time.Duration) error { return nil },
		}
		return r.Run(ctx, list)
	}
	runDir, release, err := rundir.Create(o.RunsDir, p.Name, data, time.Now(), rand.Reader)
	if err != nil {
		return err
	}
	defer release()
	sum := sha256.Sum256(data)
	absPlan, _ := filepath.Abs(file)
	sopt := rundir.StateOptions{Only: copt.Only, From: copt.From, Until: copt.Until, DriverPath: driverPath(o.DriverPath), SkipPreflight: o.SkipPreflight}
	st := rundir.NewState(filepath.Join(runDir, rundir.StateFile), absPlan, hex.EncodeToString(sum[:]), sopt, list, time.Now())
	if err := st.Save(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "run directory: %s\n", runDir)
	return execute(ctx, runDir, p, list, st, o)
}

// driverPath is the benchrig binary for workload hosts, made absolute so
// that a resume from another directory finds it.
func driverPath(flag string) string {
	if flag == "" {
		flag, _ = os.Executable()
	}
	abs, err := filepath.Abs(flag)
	if err != nil {
		return flag
	}
	return abs
}

// loadRunPlan loads the run's copy of its plan, resolving relative paths
// against the directory of the original.
func loadRunPlan(runDir string, st *rundir.State, opts plan.Options) (*plan.Plan, error) {
	data, err := plan.ReadPlanFile(filepath.Join(runDir, rundir.PlanFile))
	if err != nil {
		return nil, err
	}
	return plan.ParsePlan(filepath.Join(filepath.Dir(st.Plan), rundir.PlanFile), data, opts)
}

// execute runs stages for real with the run directory's state, logs and
// console, then writes the report (also after a failure: it shows how far
// the run got; a resume rewrites it). The caller holds the run
// directory's lock.
func execute(ctx context.Context, runDir string, p *plan.Plan, list []stages.Stage, st *rundir.State, o Options) error {
	outLog, err := os.OpenFile(filepath.Join(runDir, rundir.OutputLog), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer outLog.Close()
	journal, err := os.OpenFile(filepath.Join(runDir, rundir.StepsLog), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer journal.Close()
	// The screen gets what a person watches; output.log all of it, and
	// every host's raw output is in logs/<stage>/<host>.log (the Logs
	// observer). The hosts' live lines reach the screen with --verbose.
	screen, logw := &syncWriter{w: o.Out}, &syncWriter{w: outLog}
	both := io.MultiWriter(screen, logw)
	hostOut, notices := io.Writer(logw), io.Writer(screen)
	if o.Verbose {
		hostOut, notices = both, nil
	}
	ex, closeEx, err := newPlanExecutor(p, runDir, hostOut, both, notices, o)
	if err != nil {
		return err
	}
	defer closeEx()
	console := &runner.Console{W: screen, Log: logw, Bars: o.Terminal && !o.Verbose, Limit: p.SSH.Concurrency, LogDir: filepath.Join(runDir, rundir.LogsDir)}
	lv := &liveView{exec: ex, p: p, runDir: runDir, show: console.Live}
	defer lv.stop()
	r := &runner.Runner{
		Exec: ex,
		Observers: []runner.Observer{
			lv,
			&rundir.Journal{W: journal},
			&rundir.Logs{Dir: filepath.Join(runDir, rundir.LogsDir)},
			newProbeResults(runDir),
			&diedRecords{runDir: runDir, window: p.TPCC.Duration.Std().Seconds()},
			st,
			console,
		},
		Limit:     p.SSH.Concurrency,
		StartLead: o.StartLead,
		Progress:  st,
		JobTag:    filepath.Base(runDir),

		ReconnectBudget: reconnectBudget(p, o),
	}
	err = r.Run(ctx, list)
	var se *StepError
	if errors.As(err, &se) {
		se.Log = filepath.Join(runDir, rundir.LogsDir, se.Stage, se.Host+".log")
	}
	lv.stop()
	console.Close()
	md, rerr := report.Write(runDir, p, st, o.Version)
	if rerr != nil {
		fmt.Fprintf(o.ErrOut, "benchrig: report: %s\n", termsafe.String(rerr.Error()))
	}
	var incomplete *IncompleteError
	if errors.As(err, &incomplete) {
		// Every stage ran; the message says how to measure again.
		incomplete.RunDir = runDir
		if rerr == nil {
			fmt.Fprintf(o.Out, "report (INCOMPLETE): %s\n", md)
		}
		if p.Thresholds != nil {
			fmt.Fprintf(o.ErrOut, "benchrig: the plan's thresholds were not checked: the result is incomplete\n")
		}
		return err
	}
	if err != nil {
		fmt.Fprintf(o.ErrOut, "benchrig: the run stopped; finish it with: benchrig resume %s\n", runDir)
		return err
	}
	fmt.Fprintf(o.Out, "run complete: %s\n", runDir)
	if rerr == nil {
		fmt.Fprintf(o.Out, "report: %s\n", md)
		return judgeRun(o.ErrOut, runDir, p)
	}
	return nil
}

// reconnectBudget is the command line's budget, else the plan's, else
// the runner's default (0).
func reconnectBudget(p *plan.Plan, o Options) time.Duration {
	if o.ReconnectBudget != 0 {
		return o.ReconnectBudget
	}
	return p.SSH.ReconnectBudget.Std()
}

// Status writes the stage × host progress of the run in runDir.
func Status(w io.Writer, runDir string, perHost bool) error {
	st, err := rundir.Open(runDir)
	if err != nil {
		return err
	}
	// Errors and steps quote what hosts sent: shown, not acted on.
	var b bytes.Buffer
	if err := rundir.PrintStatus(&b, st, perHost); err != nil {
		return err
	}
	_, err = io.WriteString(w, termsafe.String(b.String()))
	return err
}

// Report writes the report of the run in runDir again and returns the
// markdown file's path.
func Report(runDir, version string) (string, error) {
	st, err := rundir.Open(runDir)
	if err != nil {
		return "", err
	}
	p, err := loadRunPlan(runDir, st, plan.Options{ReadOnly: true})
	if err != nil {
		return "", err
	}
	return report.Write(runDir, p, st, version)
}

// Runs lists the run directories under runsDir, newest first.
func Runs(runsDir string) ([]rundir.Run, error) { return rundir.List(runsDir) }
