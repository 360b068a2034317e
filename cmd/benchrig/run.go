package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/remote"
)

type runOptions struct {
	dryRun        bool
	only          string
	from, until   string
	driver        string
	startLead     time.Duration
	runsDir       string
	acceptNew     bool
	knownHosts    string
	identity      string
	skipPreflight bool
	force         bool
}

func connectionFlags(o *runOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "known-hosts", Usage: "known_hosts `FILE` (default: the plan's, else ~/.ssh/known_hosts)", Destination: &o.knownHosts},
		&cli.BoolFlag{Name: "accept-new-host-keys", Usage: "add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused", Destination: &o.acceptNew},
		&cli.StringFlag{Name: "identity", Aliases: []string{"i"}, Usage: "private key `FILE` to offer (after ssh-agent's keys)", Destination: &o.identity},
	}
}

func runCommand() *cli.Command {
	var o runOptions
	return &cli.Command{
		Name:      "run",
		Usage:     "run a plan's stages on its hosts",
		ArgsUsage: "PLAN",
		Description: `Compiles the plan into its stages (install, start, init, configure, import,
partition, swap, allocate, run, collect, merge) and runs them host by host,
recording progress in runs/<plan>-<time>-<random>/ so that 'benchrig resume' can
finish a failed or interrupted run. With --dry-run nothing is contacted:
every command, transfer and SQL statement is printed per host, exactly as a
run would send it (secrets as ****).`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.dryRun},
			&cli.StringFlag{Name: "only", Usage: "run only these stages (comma-separated)", Destination: &o.only},
			&cli.StringFlag{Name: "from", Usage: "start at this stage", Destination: &o.from},
			&cli.StringFlag{Name: "until", Usage: "stop after this stage", Destination: &o.until},
			&cli.StringFlag{Name: "driver-binary", Usage: "benchrig binary to upload to workload hosts (default: this executable)", Destination: &o.driver},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.startLead},
			&cli.StringFlag{Name: "runs-dir", Value: "runs", Usage: "where run directories are made", Destination: &o.runsDir},
			&cli.BoolFlag{Name: "skip-preflight", Usage: "leave out the preflight stage (host checks and disk benchmark)", Destination: &o.skipPreflight},
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("run: name one plan file"))
			}
			return runPlan(c.Context, c.App.Writer, c.App.ErrWriter, c.Args().First(), o)
		},
	}
}

func resumeCommand() *cli.Command {
	var o runOptions
	return &cli.Command{
		Name:      "resume",
		Usage:     "finish a failed or interrupted run from its run directory",
		ArgsUsage: "RUN_DIR",
		Description: `Continues from the first unfinished step of every host; finished steps are
not repeated, detached jobs still running are re-attached, and jobs that
were killed (SIGKILL, host restart) are started again. --from STAGE forces
that stage and every later one to run again.

The run's copy of the plan must be the one it started with (sha256), and
every step must compile to the command the run recorded; otherwise resume
says what changed and stops (--force goes on). A run that another
benchrig process still drives is refused, naming its pid.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "run this stage and every later one again", Destination: &o.from},
			&cli.BoolFlag{Name: "force", Usage: "resume even though the run's plan or its compiled steps changed since they ran", Destination: &o.force},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.startLead},
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("resume: name one run directory"))
			}
			return resumeRun(c.Context, c.App.Writer, c.App.ErrWriter, c.Args().First(), o)
		},
	}
}

func statusCommand() *cli.Command {
	var hosts bool
	return &cli.Command{
		Name:      "status",
		Usage:     "print a run's stage × host progress",
		ArgsUsage: "RUN_DIR",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "hosts", Usage: "one line per host, not per stage", Destination: &hosts},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("status: name one run directory"))
			}
			st, err := orchestrator.ReadState(filepath.Join(c.Args().First(), "state.json"))
			if err != nil {
				return err
			}
			return printStatus(c.App.Writer, st, hosts)
		},
	}
}

func runPlan(ctx context.Context, out, errOut io.Writer, file string, o runOptions) error {
	p, err := loadPlan(file)
	if err != nil {
		return err
	}
	opt := orchestrator.Options{From: o.from, Until: o.until, DriverPath: o.driver, SkipPreflight: o.skipPreflight}
	if o.only != "" {
		opt.Only = strings.Split(o.only, ",")
	}
	stages, err := orchestrator.Compile(p, opt)
	if err != nil {
		return withExit(exitUsage, err)
	}
	if o.dryRun {
		fmt.Fprintf(out, "dry run of plan %s (%s): nothing is contacted; each line is what would be sent to that host\n", p.Name, file)
		r := &orchestrator.Runner{
			Exec:      remote.NewRecorder(),
			Out:       out,
			Listing:   true,
			Limit:     p.SSH.Concurrency,
			StartLead: o.startLead,
			Sleep:     func(context.Context, time.Duration) error { return nil },
		}
		return r.Run(ctx, stages)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	runDir, err := orchestrator.NewRunDir(o.runsDir, p.Name, time.Now(), rand.Reader)
	if err != nil {
		return err
	}
	release, err := orchestrator.Lock(runDir)
	if err != nil {
		return err
	}
	defer release()
	// The run keeps its own copy of the plan: a resume compiles exactly
	// what the run started with, whatever happens to the original.
	if err := os.WriteFile(filepath.Join(runDir, "plan.yaml"), data, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	absPlan, _ := filepath.Abs(file)
	sopt := orchestrator.StateOptions{Only: opt.Only, From: opt.From, Until: opt.Until, DriverPath: driverPath(o.driver), SkipPreflight: o.skipPreflight}
	st := orchestrator.NewState(filepath.Join(runDir, "state.json"), absPlan, hex.EncodeToString(sum[:]), sopt, stages, time.Now())
	if err := st.Save(); err != nil {
		return err
	}
	fmt.Fprintf(out, "run directory: %s\n", runDir)
	return execute(ctx, out, errOut, runDir, p, stages, st, o)
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

func resumeRun(ctx context.Context, out, errOut io.Writer, runDir string, o runOptions) error {
	if _, err := os.Stat(filepath.Join(runDir, "state.json")); err != nil {
		return withExit(exitUsage, fmt.Errorf("resume: %s is not a run directory: %w", runDir, err))
	}
	// The lock comes first: a second resume of a live run must not even
	// rewrite the state (--from) before it is refused.
	release, err := orchestrator.Lock(runDir)
	if err != nil {
		return withExit(exitUsage, fmt.Errorf("resume: %w", err))
	}
	defer release()
	st, err := orchestrator.ReadState(filepath.Join(runDir, "state.json"))
	if err != nil {
		return err
	}
	planFile := filepath.Join(runDir, "plan.yaml")
	data, err := os.ReadFile(planFile)
	if err != nil {
		return err
	}
	p, err := loadPlanAt(planFile, filepath.Dir(st.Plan))
	if err != nil {
		return err
	}
	opt := orchestrator.Options{Only: st.Options.Only, From: st.Options.From, Until: st.Options.Until, DriverPath: st.Options.DriverPath, SkipPreflight: st.Options.SkipPreflight}
	stages, err := orchestrator.Compile(p, opt)
	if err != nil {
		return err
	}
	if err := st.Matches(stages); err != nil {
		return withExit(exitUsage, fmt.Errorf("resume %s: %w; start a new run", runDir, err))
	}
	if err := checkUnchanged(errOut, runDir, data, st, stages, o.force); err != nil {
		return err
	}
	if o.from != "" {
		if err := st.Restart(o.from); err != nil {
			return withExit(exitUsage, err)
		}
	}
	fmt.Fprintf(out, "resuming %s (plan %s)\n", runDir, p.Name)
	return execute(ctx, out, errOut, runDir, p, stages, st, o)
}

// checkUnchanged refuses a resume whose plan copy is not the file the run
// started with (its sha256) or whose steps compile differently from the
// ones the state recorded, with a short summary of what changed; force
// accepts the change and makes the state describe the new plan.
func checkUnchanged(errOut io.Writer, runDir string, plan []byte, st *orchestrator.State, stages []orchestrator.Stage, force bool) error {
	sum := sha256.Sum256(plan)
	planSum := hex.EncodeToString(sum[:])
	changes := st.Changes(stages)
	if planSum == st.PlanSum && len(changes) == 0 {
		return nil
	}
	var b strings.Builder
	if planSum != st.PlanSum {
		fmt.Fprintf(&b, "%s has sha256 %.12s…, the run started with %.12s…", filepath.Join(runDir, "plan.yaml"), planSum, st.PlanSum)
	} else {
		b.WriteString("the plan compiles to different steps than the ones the run recorded (a referenced file or the benchrig version changed)")
	}
	if len(changes) == 0 {
		b.WriteString("; no compiled step changed")
	} else {
		b.WriteString("; changed:")
	}
	const show = 8
	for i, c := range changes {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more stages", len(changes)-show)
			break
		}
		b.WriteString("\n  " + c)
	}
	if !force {
		return withExit(exitUsage, fmt.Errorf("resume %s: %s\nfinished steps would not be run again: start a new run, or resume with --force to go on anyway", runDir, b.String()))
	}
	fmt.Fprintf(errOut, "benchrig: warning: resuming with --force: %s\n", b.String())
	return st.Rebase(stages, planSum)
}

// loadPlanAt loads the run's copy of a plan, resolving its relative paths
// against the directory of the original.
func loadPlanAt(file, dir string) (*orchestrator.Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p, err := orchestrator.ParsePlan(filepath.Join(dir, filepath.Base(file)), data)
	var pe *orchestrator.PlanError
	if errors.As(err, &pe) {
		return nil, withExit(exitInvalidPlan, err)
	}
	return p, err
}

// execute runs stages for real with the run directory's state.
// The caller holds the run directory's lock.
func execute(ctx context.Context, out, errOut io.Writer, runDir string, p *orchestrator.Plan, stages []orchestrator.Stage, st *orchestrator.State, o runOptions) error {
	outLog, err := os.OpenFile(filepath.Join(runDir, "output.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer outLog.Close()
	journal, err := os.OpenFile(filepath.Join(runDir, "steps.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer journal.Close()
	live := io.MultiWriter(out, outLog)
	ex, closeEx, err := newPlanExecutor(p, runDir, live, errOut, o)
	if err != nil {
		return err
	}
	defer closeEx()
	clocks := &clockProbes{path: filepath.Join(runDir, report.ClockFile)}
	r := &orchestrator.Runner{
		Exec:      ex,
		Out:       live,
		Limit:     p.SSH.Concurrency,
		StartLead: o.startLead,
		State:     st,
		LogDir:    filepath.Join(runDir, "logs"),
		Journal:   journal,
		JobTag:    filepath.Base(runDir),
		Observe:   clocks.observe,
	}
	err = r.Run(ctx, stages)
	// The report is written after every attempt, so a failed run still
	// shows how far it got; a resumed run rewrites it.
	md, rerr := report.Write(runDir, p, st, version)
	if rerr != nil {
		fmt.Fprintf(errOut, "benchrig: report: %v\n", rerr)
	}
	if err != nil {
		fmt.Fprintf(errOut, "benchrig: the run stopped; finish it with: benchrig resume %s\n", runDir)
		return err
	}
	fmt.Fprintf(out, "run complete: %s\n", runDir)
	if rerr == nil {
		fmt.Fprintf(out, "report: %s\n", md)
	}
	return nil
}

// clockProbes collects the "read clock" probes of the run stage into
// clock.json: the host's clock minus the midpoint of send and receive.
type clockProbes struct {
	path string
	mu   sync.Mutex
	list []report.ClockOffset
}

func (c *clockProbes) observe(stage string, s orchestrator.Step, sent, received time.Time, res remote.Result) {
	if s.Probe != "clock" {
		return
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(res.Stdout)), 64)
	if err != nil {
		return
	}
	mid := sent.Add(received.Sub(sent) / 2)
	host := time.Unix(0, int64(secs*1e9))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, report.ClockOffset{
		Host:     s.Host,
		OffsetMs: float64(host.Sub(mid)) / float64(time.Millisecond),
		RTTMs:    float64(received.Sub(sent)) / float64(time.Millisecond),
	})
	sort.Slice(c.list, func(i, j int) bool { return c.list[i].Host < c.list[j].Host })
	if data, err := json.MarshalIndent(c.list, "", "  "); err == nil {
		_ = os.WriteFile(c.path, data, 0o644)
	}
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a run's report again (report.md, report.json, plots)",
		ArgsUsage: "RUN_DIR",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("report: name one run directory"))
			}
			runDir := c.Args().First()
			st, err := orchestrator.ReadState(filepath.Join(runDir, "state.json"))
			if err != nil {
				return err
			}
			p, err := loadPlanAt(filepath.Join(runDir, "plan.yaml"), filepath.Dir(st.Plan))
			if err != nil {
				return err
			}
			md, err := report.Write(runDir, p, st, version)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "report: %s\n", md)
			return nil
		},
	}
}

// planExecutor sends plan hosts to SSH and LocalHost to this machine,
// where "benchrig" is this executable and relative paths are the run
// directory's.
type planExecutor struct {
	ssh    *remote.SSH
	local  *remote.Local
	self   string
	runDir string
}

func newPlanExecutor(p *orchestrator.Plan, runDir string, live, errOut io.Writer, o runOptions) (*planExecutor, func(), error) {
	targets, err := p.Targets("all")
	if err != nil {
		return nil, nil, err
	}
	cfg := sshConfigFor(p)
	cfg.Output = live
	if o.knownHosts != "" {
		cfg.KnownHostsFiles = []string{o.knownHosts}
	}
	if o.identity != "" {
		cfg.IdentityFiles = append(cfg.IdentityFiles, o.identity)
	}
	if o.acceptNew {
		cfg.HostKeyPolicy = remote.HostKeysAcceptNew
	}
	if isTerminal(errOut) {
		cfg.Progress = errOut
	}
	s, err := remote.NewSSH(targets, cfg)
	if err != nil {
		return nil, nil, withExit(exitTransport, err)
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(errOut, "benchrig: warning: %s\n", w)
	}
	self, _ := os.Executable()
	abs, _ := filepath.Abs(runDir)
	e := &planExecutor{
		ssh:    s,
		local:  remote.NewLocal(remote.LocalConfig{Output: live, Hosts: []string{orchestrator.LocalHost}}),
		self:   self,
		runDir: abs,
	}
	return e, func() { s.Close() }, nil
}

// sshConfigFor is the SSH executor configuration a plan asks for.
func sshConfigFor(p *orchestrator.Plan) remote.SSHConfig {
	var cfg remote.SSHConfig
	if p.SSH.KnownHosts != "" {
		cfg.KnownHostsFiles = []string{p.SSH.KnownHosts}
	}
	cfg.SSHConfigFile = p.SSH.Config
	if p.SSH.IdentityFile != "" {
		cfg.IdentityFiles = []string{p.SSH.IdentityFile}
	}
	return cfg
}

func (e *planExecutor) Run(ctx context.Context, host string, c remote.Cmd) (remote.Result, error) {
	if host != orchestrator.LocalHost {
		return e.ssh.Run(ctx, host, c)
	}
	if len(c.Args) > 0 && c.Args[0] == "benchrig" {
		c.Args = append([]string{e.self}, c.Args[1:]...)
	}
	if c.Dir == "" {
		c.Dir = e.runDir
	}
	return e.local.Run(ctx, host, c)
}

func (e *planExecutor) Put(ctx context.Context, host string, t remote.Transfer) error {
	return e.ssh.Put(ctx, host, e.inRunDir(t))
}

func (e *planExecutor) Get(ctx context.Context, host string, t remote.Transfer) error {
	return e.ssh.Get(ctx, host, e.inRunDir(t))
}

func (e *planExecutor) inRunDir(t remote.Transfer) remote.Transfer {
	if !filepath.IsAbs(t.Local) {
		t.Local = filepath.Join(e.runDir, t.Local)
	}
	return t
}

// printStatus writes the stage × host table of a run.
func printStatus(w io.Writer, st *orchestrator.State, perHost bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "plan %s, started %s\n\n", st.Plan, st.Created.Format(time.RFC3339))
	if perHost {
		fmt.Fprintln(tw, "STAGE\tHOST\tSTATUS\tSTEPS\tTIME\tNOW / ERROR")
	} else {
		fmt.Fprintln(tw, "STAGE\tSTATUS\tHOSTS DONE\tFAILED\tTIME")
	}
	for _, s := range st.Stages {
		if perHost {
			for _, h := range s.Hosts {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\n", s.Name, h.Host, h.Status, h.Done, h.Steps, span(h.Started, h.Finished), firstNonEmpty(h.Error, h.Current))
			}
			continue
		}
		done, failed := 0, []string{}
		for _, h := range s.Hosts {
			switch h.Status {
			case orchestrator.Done:
				done++
			case orchestrator.Failed:
				failed = append(failed, h.Host)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\n", s.Name, s.Status, done, len(s.Hosts), strings.Join(failed, ","), span(s.Started, s.Finished))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range st.Stages {
		for _, h := range s.Hosts {
			if h.Error != "" && !perHost {
				fmt.Fprintf(w, "\n%s on %s: %s\n", s.Name, h.Host, h.Error)
			}
		}
	}
	return nil
}

func span(a, b *time.Time) string {
	switch {
	case a == nil:
		return "-"
	case b == nil:
		return "since " + a.Local().Format("15:04:05")
	}
	return b.Sub(*a).Round(time.Second).String()
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
