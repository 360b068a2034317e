package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// livePoll is how often the live view asks the workload hosts.
const livePoll = 5 * time.Second

// liveTicks is how many of a host's latest New-Order ticks (one a
// second) its live tpmC is computed over.
const liveTicks = 5

// liveTailScript prints the last $3 New-Order ticks among the last $4
// lines of histogram file $1 ($2 is the line prefix of a New-Order tick):
// tail seeks from the end, so a poll costs the same an hour into a run.
const liveTailScript = `tail -n "$4" -- "$1" 2>/dev/null | grep -F -e "$2" | tail -n "$3"`

// liveView is the observer that, while a round of the run stage runs,
// reads every workload host's newest histogram ticks (the driver's own
// data, flushed every tick) and writes the live throughput to the run
// directory's live.json, for status --watch.
type liveView struct {
	exec   runner.Executor
	p      *plan.Plan
	runDir string
	poll   time.Duration
	// show, if set, gets the merged figures after each poll that found
	// measured ticks (the run's console: runner.Console.Live).
	show func(text string)

	mu     sync.Mutex
	round  string
	cancel context.CancelFunc
	done   chan struct{}
}

// Observe starts polling when a round's run jobs start and stops when the
// stage ends.
func (l *liveView) Observe(e runner.Event) error {
	if e.Stage != "run" {
		return nil
	}
	switch e.Kind {
	case runner.StepStarted:
		if e.Step.Kind != stages.Job || e.Step.JobMode != stages.JobWait {
			return nil
		}
		if rd, ok := l.roundOf(e.Step.JobName); ok {
			l.start(rd)
		}
	case runner.StageDone, runner.StageFailed:
		l.stop()
	}
	return nil
}

// roundOf maps a run job's name ("run", "run-r2") to its round.
func (l *liveView) roundOf(job string) (plan.Round, bool) {
	if l.p.Benchmark == "crud" || l.p.TPCC.Search != nil {
		return plan.Round{}, false
	}
	for _, rd := range l.p.Rounds() {
		name := "run"
		if rd.Label != "" {
			name += "-" + rd.Label
		}
		if name == job {
			return rd, true
		}
	}
	return plan.Round{}, false
}

func (l *liveView) start(rd plan.Round) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil && l.round == rd.Label {
		return // another host's job of the same round
	}
	l.stopLocked()
	ctx, cancel := context.WithCancel(context.Background())
	l.round, l.cancel, l.done = rd.Label, cancel, make(chan struct{})
	go l.loop(ctx, rd, l.done)
}

func (l *liveView) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopLocked()
}

func (l *liveView) stopLocked() {
	if l.cancel == nil {
		return
	}
	l.cancel()
	<-l.done
	l.cancel = nil
	if live, err := rundir.ReadLive(l.runDir); err == nil && live != nil {
		live.Done = true
		_ = rundir.WriteLive(l.runDir, live)
		if l.show != nil && live.TpmC > 0 {
			l.show(liveText(live))
		}
	}
}

func (l *liveView) loop(ctx context.Context, rd plan.Round, done chan struct{}) {
	defer close(done)
	poll := l.poll
	if poll <= 0 {
		poll = livePoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		live := &rundir.Live{Updated: time.Now().UTC(), Round: rd.Label}
		for i, h := range l.p.Workload {
			lh := l.readHost(ctx, h, plan.HistogramFile(l.p, i, rd))
			live.TpmC += lh.TpmC
			live.Hosts = append(live.Hosts, lh)
		}
		if ctx.Err() != nil {
			return
		}
		_ = rundir.WriteLive(l.runDir, live)
		if l.show != nil && live.TpmC > 0 {
			l.show(liveText(live))
		}
	}
}

// readHost is one host's tpmC over its last liveTicks New-Order ticks.
func (l *liveView) readHost(ctx context.Context, h plan.Host, file string) rundir.LiveHost {
	lh := rundir.LiveHost{Host: h.Name}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	prefix := `{"Name":"` + histogram.NewOrder + `"`
	res, err := l.exec.Run(ctx, h.Name, remote.Cmd{Dir: h.Dir, Quiet: true,
		Args: []string{"sh", "-c", liveTailScript, "sh", file, prefix, strconv.Itoa(liveTicks + 1), strconv.Itoa((liveTicks + 1) * 2 * len(histogram.TPCCNames()))}})
	if err != nil {
		lh.Error = err.Error()
		return lh
	}
	return liveTicksOf(h.Name, res.Stdout)
}

// Bounds on a live tick line (the host writes it; it may be hostile): a
// driver's tick has at most a few thousand buckets (histogram.Decode
// takes 4096), each of fewer than 2^40 operations, over about a second.
const (
	maxLiveLine   = 128 << 10
	maxLiveCounts = 4096
	maxLiveBucket = 1 << 40
)

// liveTicksOf is a host's tpmC from the New-Order tick lines of
// liveTailScript's output.
func liveTicksOf(host string, out []byte) rundir.LiveHost {
	lh := rundir.LiveHost{Host: host}
	// One line more than needed: the last may be one being written.
	var ticks []histogram.Tick
	for _, line := range strings.Split(string(out), "\n") {
		var t histogram.Tick
		// A line longer than any honest tick is not decoded at all.
		if line == "" || len(line) > maxLiveLine || json.Unmarshal([]byte(line), &t) != nil || t.Name != histogram.NewOrder ||
			t.Elapsed < time.Millisecond || t.Elapsed > time.Hour || t.Now.IsZero() || len(t.Hist.Counts) > maxLiveCounts {
			continue
		}
		if slices.ContainsFunc(t.Hist.Counts, func(c int64) bool { return c < 0 || c > maxLiveBucket }) {
			continue // not a histogram the driver wrote
		}
		ticks = append(ticks, t)
	}
	if len(ticks) > liveTicks {
		ticks = ticks[len(ticks)-liveTicks:]
	}
	var count float64 // a float: hostile counts must not wrap around
	var window time.Duration
	for _, t := range ticks {
		for _, c := range t.Hist.Counts {
			count += float64(c)
		}
		window += t.Elapsed
		if lh.Last == nil || t.Now.After(*lh.Last) {
			now := t.Now
			lh.Last = &now
		}
	}
	if window > 0 {
		lh.Window = window.Seconds()
		lh.TpmC = count / window.Minutes()
	}
	return lh
}

// liveText is what the console shows of live: "merged tpmC 1234.5 over
// the last 5s of 5 workload hosts", and the hosts that sent no ticks.
func liveText(live *rundir.Live) string {
	text := fmt.Sprintf("merged tpmC %.1f over the last %ds of %d workload hosts", live.TpmC, liveTicks, len(live.Hosts))
	var missing []string
	for _, h := range live.Hosts {
		if h.Error != "" || h.Last == nil {
			missing = append(missing, h.Host)
		}
	}
	if len(missing) > 0 {
		text += fmt.Sprintf("; no ticks from %s", strings.Join(missing, ", "))
	}
	return text
}
