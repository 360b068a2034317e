package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/benchrig/benchrig/internal/termsafe"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// Console is the observer that shows a run as a person follows it, at 5
// hosts or at 86: per stage its header and notes, how far it got (hosts
// done of the phase under way, the time, an ETA once hosts have
// finished; a progress bar on a terminal, a line every Every elsewhere),
// the live merged tpmC of the run stage, and a line for a host only when
// something happens to it: it failed, went unreachable, came back and
// re-attached, or is late (still working long after most hosts of its
// phase finished). What a person does not need to watch goes to Log
// only: every host's end of a phase, every row of a check's table.
//
// With Listing it is the dry-run's output instead: after each phase,
// every step each host was sent, in host order, with constant scripts
// printed once by name.
//
// Every line is made safe for a terminal (termsafe): messages and errors
// quote what hosts sent.
type Console struct {
	// W is the operator's screen; Log, if set, gets every line W gets and
	// the detail W is spared (the run directory's output.log).
	W, Log  io.Writer
	Listing bool
	// Bars draws a progress bar per stage on W (a terminal), with the
	// lines printed above the bars.
	Bars bool
	// Every is how often, without bars, a stage under way says how far it
	// got, and the run stage its live tpmC (default 30s); late is judged
	// as often.
	Every time.Duration
	// Limit is the runner's: how many hosts of a stage work at once (0:
	// all). A phase whose hosts go in waves (one at a time, or more hosts
	// than the limit) gets an ETA; one whose hosts all start together
	// does not (the first to finish says little of the last).
	Limit int
	// LogDir is how the failure lines name the hosts' logs ("logs": the
	// run directory's logs/<stage>/<host>.log).
	LogDir string
	// Now is the clock; nil is time.Now. A console with a clock of its
	// own is ticked by its caller (Tick), not by a ticker.
	Now func() time.Time

	mu       sync.Mutex
	shown    map[string]bool // scripts the listing has printed
	st       *stageView      // the stage under way
	progress *mpb.Progress
	stop     context.CancelFunc
}

// stageView is what the console follows of the stage under way.
type stageView struct {
	name            string
	hosts           int
	serial          bool
	started, phase  time.Time // when the stage and its current phase began
	done, of        int       // hosts done of the current phase
	doneIn          []time.Duration
	running         map[string]string    // host -> the step it is on, this phase
	runningSince    map[string]time.Time // host -> when it began this phase
	late            map[string]bool      // hosts already called late this phase
	said            time.Time            // the last progress line
	live            string               // the run stage's live figures
	liveSaid        time.Time
	bar             *mpb.Bar
	barText         atomic.Pointer[string] // what the bar shows after the count
	lastLiveWasSaid bool
}

func (c *Console) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Console) every() time.Duration {
	if c.Every > 0 {
		return c.Every
	}
	return 30 * time.Second
}

// say writes a line (or lines) to the screen and the log.
func (c *Console) say(format string, args ...any) {
	s := termsafe.String(fmt.Sprintf(format, args...))
	c.screen(s)
	c.log(s)
}

// screen writes s to the screen only: above the bars when there are any.
func (c *Console) screen(s string) {
	if c.progress != nil {
		_, _ = c.progress.Write([]byte(s))
		return
	}
	_, _ = io.WriteString(c.W, s)
}

// log writes s to the log only.
func (c *Console) log(s string) {
	if c.Log != nil {
		_, _ = io.WriteString(c.Log, termsafe.String(s))
	}
}

// Observe shows e.
func (c *Console) Observe(e Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Listing {
		c.listing(e)
		return nil
	}
	switch e.Kind {
	case StageSkipped:
		c.say("== stage %s: done in an earlier attempt, skipped\n", e.Stage)
	case StageStarted:
		c.header(e)
		c.startStage(e)
	case StageChecked:
		c.log(e.Text)
		brief := e.Brief
		if brief == "" {
			brief = e.Text
		}
		c.screen(termsafe.String(brief))
	case StageDone:
		c.endStage(true)
		c.say("   stage %s done in %s\n", e.Stage, e.Elapsed.Round(time.Millisecond))
	case StageFailed:
		c.endStage(false)
		c.say("   stage %s failed\n", e.Stage)
	case StepStarted:
		if v := c.st; v != nil {
			if _, ok := v.runningSince[e.Host]; !ok {
				v.runningSince[e.Host] = c.now()
			}
			v.running[e.Host] = e.Step.What
		}
	case StepDone:
		if e.CheckFailed {
			c.say("   %s: %s finished, but its checks failed (exit %d); going on\n", e.Host, e.Step.What, e.Step.CheckExit)
		}
	case StepFailed:
		if v := c.st; v != nil {
			delete(v.running, e.Host) // failed, not late
		}
		if errors.Is(e.Err, context.Canceled) {
			return nil // another host's failure stopped the stage
		}
		c.say("   FAILED %s: %s: %s (log: %s)\n", e.Host, e.Step.What, firstLine(stepMessage(e.Err)), c.hostLog(e.Stage, e.Host))
	case HostDone:
		c.log(fmt.Sprintf("   ok   %s (%d/%d)\n", e.Host, e.Done, e.Of))
		c.hostDone(e)
	case PhaseDone:
		if v := c.st; v != nil {
			v.phase, v.done, v.of, v.doneIn = c.now(), 0, 0, nil
			clear(v.running)
			clear(v.runningSince)
			clear(v.late)
		}
	case Message:
		c.say("   %s: %s\n", e.Host, e.Text)
	case HostUnreachable:
		c.say("   %s (%s): %v\n", UnreachableText(e.Host, e.Since, e.Attempt, e.BudgetLeft), e.Step.What, e.Err)
	case HostReconnected:
		c.say("   host %s reachable again after %s (%d attempt%s); re-attaching: %s\n", e.Host, e.Elapsed.Round(time.Millisecond), e.Attempt, plural(e.Attempt), e.Step.What)
	case SearchTrying, SearchVerdict, SearchDone:
		c.search(e)
	}
	return nil
}

// header prints a stage's first lines.
func (c *Console) header(e Event) {
	mode := ""
	switch n := len(e.Hosts); {
	case e.Serial && n > 1:
		mode = ", one host at a time"
	case n > 1:
		mode = ", in parallel"
	}
	c.say("== stage %s: %d host%s%s\n", e.Stage, len(e.Hosts), plural(len(e.Hosts)), mode)
	for _, n := range e.Notes {
		c.say("   note: %s\n", n)
	}
	if e.Check != nil {
		c.say("   check: %s\n", e.Check)
	}
}

func (c *Console) search(e Event) {
	switch e.Kind {
	case SearchTrying:
		c.say("   search: trying --%s=%d\n", e.Text, e.Value)
	case SearchVerdict:
		earlier := ""
		if e.Earlier {
			earlier = " (an earlier attempt)"
		}
		c.say("   search: --%s=%d %s%s\n", e.Text, e.Point.Value, passText(e.Point.Pass), earlier)
	case SearchDone:
		if e.Value > 0 {
			c.say("   search: the largest passing --%s is %d\n", e.Text, e.Value)
		} else {
			c.say("   search: no tried value passed\n")
		}
	}
}

// startStage begins following a stage: its bar on a terminal, and a
// ticker that says how far it got and who is late.
func (c *Console) startStage(e Event) {
	c.endStage(false)
	now := c.now()
	v := &stageView{name: e.Stage, hosts: len(e.Hosts), serial: e.Serial, started: now, phase: now, said: now, liveSaid: now,
		running: map[string]string{}, runningSince: map[string]time.Time{}, late: map[string]bool{}}
	c.st = v
	if c.Bars && len(e.Hosts) > 0 {
		// A container per stage: ending it (Wait) draws the last frame
		// with every line written above the bar, before the next line
		// goes to W directly.
		c.progress = mpb.New(mpb.WithOutput(c.W), mpb.WithWidth(30), mpb.WithAutoRefresh())
		v.bar = c.progress.AddBar(int64(len(e.Hosts)),
			mpb.PrependDecorators(decor.Name(e.Stage, decor.WCSyncSpaceR)),
			// Not c.mu: mpb draws from its own goroutines, which a
			// bar update made under c.mu waits for.
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
				if t := v.barText.Load(); t != nil {
					return " " + *t
				}
				return ""
			})))
		c.refreshBar(v, now)
	}
	if c.Now != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	go func() {
		t := time.NewTicker(min(time.Second, c.every()))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c.Tick()
			}
		}
	}()
}

// endStage stops following the stage under way.
func (c *Console) endStage(ok bool) {
	v := c.st
	if v == nil {
		return
	}
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	if v.bar != nil {
		if ok {
			v.bar.SetTotal(-1, true)
		} else {
			v.bar.Abort(false)
		}
	}
	if p := c.progress; p != nil {
		// Lines written to a container that is ending may never be
		// drawn: what follows goes to W once it has ended.
		c.progress = nil
		p.Wait() // its decorators do not take c.mu
	}
	if v.live != "" && !v.lastLiveWasSaid {
		c.say("   live: %s\n", v.live)
	}
	c.st = nil
}

// Close stops following a stage still under way (a run that stopped)
// and waits for its bar to be drawn for the last time. Call it when the
// run ends, before printing anything more on W.
func (c *Console) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endStage(false)
}

func (c *Console) hostDone(e Event) {
	v := c.st
	if v == nil {
		return
	}
	now := c.now()
	v.done, v.of = e.Done, e.Of
	ran := now.Sub(v.phase)
	if since, ok := v.runningSince[e.Host]; ok {
		ran = now.Sub(since)
		v.doneIn = append(v.doneIn, ran)
	}
	delete(v.running, e.Host)
	delete(v.runningSince, e.Host)
	if v.late[e.Host] {
		c.say("   %s: finished late, after %s\n", e.Host, ran.Round(time.Second))
	}
	if v.bar != nil {
		v.bar.SetTotal(int64(e.Of), false)
		v.bar.SetCurrent(int64(e.Done))
		c.refreshBar(v, now)
	}
}

// refreshBar sets what v's bar shows besides its count.
func (c *Console) refreshBar(v *stageView, now time.Time) {
	t := termsafe.String(c.progressText(v, now))
	v.barText.Store(&t)
}

// Tick says, every Every without bars, how far the stage under way got
// and the live tpmC, and calls late the hosts that are (on a terminal
// too). The console's own ticker calls it; tests call it with a fixed
// clock.
func (c *Console) Tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.st
	if v == nil || c.Listing {
		return
	}
	now := c.now()
	c.judgeLate(v, now)
	if v.bar != nil {
		c.refreshBar(v, now)
		return
	}
	if now.Sub(v.said) >= c.every() && v.of > 1 && v.done < v.of {
		v.said = now
		c.say("   %s: %s\n", v.name, c.progressText(v, now))
	}
	if v.live != "" && !v.lastLiveWasSaid && now.Sub(v.liveSaid) >= c.every() {
		v.liveSaid, v.lastLiveWasSaid = now, true
		c.say("   live: %s\n", v.live)
	}
}

// progressText is "40/86 hosts, 1m10s, ETA 1m30s" (the time is the
// stage's; the count and the ETA the phase's).
func (c *Console) progressText(v *stageView, now time.Time) string {
	var b strings.Builder
	if v.of > 0 {
		fmt.Fprintf(&b, "%d/%d hosts", v.done, v.of)
	} else {
		fmt.Fprintf(&b, "0/%d hosts", v.hosts)
	}
	fmt.Fprintf(&b, ", %s", now.Sub(v.started).Round(time.Second))
	// A late host makes any estimate a guess.
	waves := (v.serial || c.Limit > 0 && v.of > c.Limit) && len(v.late) == 0
	if waves && v.done > 0 && v.done < v.of {
		// The phase's hosts finish at about the rate they have so far
		// (true of waves: one at a time, or more hosts than the limit).
		per := now.Sub(v.phase) / time.Duration(v.done)
		fmt.Fprintf(&b, ", ETA %s", (per * time.Duration(v.of-v.done)).Round(time.Second))
	}
	if v.live != "" {
		fmt.Fprintf(&b, ", %s", v.live)
	}
	return b.String()
}

// lateAfter is the least time a host must run past its phase's typical
// host before it is called late.
const lateAfter = 30 * time.Second

// judgeLate calls late, once per phase, a host still working when at
// least half of its phase's hosts have finished and it has run more than
// twice as long as the median of those and lateAfter more.
func (c *Console) judgeLate(v *stageView, now time.Time) {
	if v.of < 2 || 2*v.done < v.of || len(v.doneIn) == 0 {
		return
	}
	d := slices.Clone(v.doneIn)
	slices.Sort(d)
	median := d[len(d)/2]
	hosts := make([]string, 0, len(v.running))
	for h := range v.running {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		ran := now.Sub(v.runningSince[h])
		if v.late[h] || ran < 2*median+lateAfter {
			continue
		}
		v.late[h] = true
		c.say("   %s: late: still on %s after %s (%d of %d hosts finished this phase, typically in %s)\n",
			h, v.running[h], ran.Round(time.Second), v.done, v.of, median.Round(time.Second))
	}
}

// Live shows the run stage's live merged figures (text such as "merged
// tpmC 1234.5 of 5 workload hosts"): on the stage's bar, or as a line
// every Every, and as the stage's last line.
func (c *Console) Live(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := c.st; v != nil {
		v.live, v.lastLiveWasSaid = text, false
	}
}

func (c *Console) hostLog(stage, host string) string {
	dir := c.LogDir
	if dir == "" {
		dir = "logs"
	}
	return path.Join(dir, stage, host+".log")
}

// stepMessage is a failed step's own message (without stage, host and
// step, which the line names).
func stepMessage(err error) string {
	var se *StepError
	if errors.As(err, &se) {
		return se.Message()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// listing is the dry-run's console.
func (c *Console) listing(e Event) {
	switch e.Kind {
	case StageSkipped:
		c.say("== stage %s: done in an earlier attempt, skipped\n", e.Stage)
	case StageStarted:
		c.header(e)
	case StageChecked:
		c.say("%s", e.Text)
	case StepDone:
		if e.CheckFailed {
			c.say("   %s: %s finished, but its checks failed (exit %d); going on\n", e.Host, e.Step.What, e.Step.CheckExit)
		}
	case PhaseDone:
		c.list(e.Hosts, e.Listing)
	case Message:
		c.say("   %s: %s\n", e.Host, e.Text)
	case SearchTrying, SearchVerdict, SearchDone:
		c.search(e)
	}
}

// list prints the dry-run listing of a phase: scripts once, then every
// host's steps in host order.
func (c *Console) list(hosts []string, journals [][]stages.Step) {
	if c.shown == nil {
		c.shown = map[string]bool{}
	}
	width := 0
	for _, h := range hosts {
		width = max(width, len(h))
	}
	lines := make([][]string, len(hosts))
	for i := range hosts {
		for _, s := range journals[i] {
			line, scripts := s.Listing()
			lines[i] = append(lines[i], line)
			for _, name := range scripts {
				if c.shown[name] {
					continue
				}
				c.shown[name] = true
				fmt.Fprintf(c.W, "   script <%s>, run as sh -c <%s> sh ARGS...:\n", name, name)
				for _, l := range strings.Split(stages.ScriptText(name), "\n") {
					fmt.Fprintf(c.W, "   : %s\n", l)
				}
			}
		}
	}
	for i, h := range hosts {
		prefix := fmt.Sprintf("%-*s | ", width, h)
		for _, line := range lines[i] {
			fmt.Fprintf(c.W, "%s%s\n", prefix, strings.ReplaceAll(line, "\n", "\n"+prefix))
		}
	}
}

func passText(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
