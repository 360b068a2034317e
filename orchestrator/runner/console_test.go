package runner

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// consoleRig drives a Console with events under a fixed clock.
type consoleRig struct {
	c           *Console
	screen, log bytes.Buffer
	now         time.Time
}

func newConsoleRig() *consoleRig {
	r := &consoleRig{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	r.c = &Console{Limit: 8, LogDir: "runs/x/logs", Now: func() time.Time { return r.now }}
	r.c.W, r.c.Log = &r.screen, &r.log
	return r
}

func (r *consoleRig) emit(e Event) {
	if err := r.c.Observe(e); err != nil {
		panic(err)
	}
}

// advance moves the clock on by d, a second at a time, ticking as the
// console's own ticker does.
func (r *consoleRig) advance(d time.Duration) {
	for end := r.now.Add(d); r.now.Before(end); {
		r.now = r.now.Add(time.Second)
		r.c.Tick()
	}
}

func hostNames(n int) []string {
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("node-%02d", i+1)
	}
	return hosts
}

// TestConsoleAt86Hosts follows an install of 86 hosts, 8 at a time, in
// which one host fails, one goes away and comes back, one is late, and
// a preflight of 86 hosts of which one is not ok: the screen says what a
// person needs (pinned by a golden), the log holds every host's line.
func TestConsoleAt86Hosts(t *testing.T) {
	r := newConsoleRig()
	hosts := hostNames(86)
	step := stages.Step{What: "install benchrig"}

	// A preflight whose table has 86 rows, one of them not ok.
	var table strings.Builder
	table.WriteString("HOST     VERDICT\n")
	for _, h := range hosts {
		verdict := "ok"
		if h == "node-42" {
			verdict = "FAIL: port 26257 is already in use"
		}
		fmt.Fprintf(&table, "%-8s %s\n", h, verdict)
	}
	r.emit(Event{Kind: StageStarted, Stage: "preflight", Hosts: hosts})
	r.emit(Event{Kind: StageChecked, Stage: "preflight", Text: table.String(),
		Brief: "HOST     VERDICT\nnode-42  FAIL: port 26257 is already in use\n   preflight: 85 of 86 hosts ok, 1 failed (every host's row: output.log)\n"})
	r.emit(Event{Kind: StageDone, Stage: "preflight", Elapsed: 4 * time.Second})

	r.emit(Event{Kind: StageStarted, Stage: "install", Hosts: hosts})
	done := 0
	for i, h := range hosts {
		if i%8 == 0 && i > 0 {
			r.advance(3 * time.Second) // waves of 8, each host 3 s
		}
		if i%8 == 0 {
			for _, h := range hosts[i:min(i+8, len(hosts))] {
				r.emit(Event{Kind: StepStarted, Stage: "install", Host: h, Step: step})
			}
			r.advance(3 * time.Second)
		}
		switch h {
		case "node-07":
			r.emit(Event{Kind: HostUnreachable, Stage: "install", Host: h, Step: step, Since: r.now, Attempt: 1, BudgetLeft: 10 * time.Minute,
				Err: errors.New("host node-07: dial 10.0.0.7:22: connection refused")})
			r.emit(Event{Kind: HostReconnected, Stage: "install", Host: h, Step: step, Since: r.now, Attempt: 2, Elapsed: 1500 * time.Millisecond})
		case "node-13":
			// Its remote quoted hostile output: shown, not acted on.
			err := &StepError{Stage: "install", Host: h, Step: step.What, Err: &remote.ExitError{Host: h, Code: 1},
				msg: "command exited with status 1\n    sha256sum: benchrig: \x1b]0;owned\a\x1b[2JFAILED"}
			r.emit(Event{Kind: StepFailed, Stage: "install", Host: h, Step: step, Err: err})
			continue
		case "node-86":
			continue // late: finishes long after the others
		}
		done++
		r.emit(Event{Kind: HostDone, Stage: "install", Host: h, Done: done, Of: 86})
	}
	r.advance(90 * time.Second)
	done++
	r.emit(Event{Kind: HostDone, Stage: "install", Host: "node-86", Done: done, Of: 86})
	r.emit(Event{Kind: PhaseDone, Stage: "install", Hosts: hosts})
	r.emit(Event{Kind: StageDone, Stage: "install", Elapsed: 123 * time.Second})

	screen, log := r.screen.String(), r.log.String()
	golden.Check(t, "console86.golden", r.screen.Bytes())
	if n := strings.Count(screen, "\n"); n > 25 {
		t.Errorf("the screen got %d lines for 86 hosts:\n%s", n, screen)
	}
	for _, h := range hosts {
		if h != "node-13" && !strings.Contains(log, "   ok   "+h+" (") {
			t.Errorf("the log lacks %s's line", h)
		}
		if !strings.Contains(log, h+"  ") && !strings.Contains(log, fmt.Sprintf("%-8s ", h)) {
			t.Errorf("the log lacks %s's preflight row", h)
		}
	}
	// Every line of the screen is in the log, in the same order.
	rest := log
	for _, line := range strings.SplitAfter(strings.TrimSuffix(screen, "\n"), "\n") {
		if strings.Contains(line, "preflight: 85 of 86") || line == "HOST     VERDICT\n" || strings.HasPrefix(line, "node-42") {
			continue // the brief table: the log has the whole one
		}
		i := strings.Index(rest, line)
		if i < 0 {
			t.Errorf("the log lacks the screen's line %q (or has it out of order)", line)
			continue
		}
		rest = rest[i+len(line):]
	}
	for _, out := range []string{screen, log} {
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("a control character reached the console:\n%q", out)
		}
	}
	for _, want := range []string{
		"FAILED node-13: install benchrig: command exited with status 1 (log: runs/x/logs/install/node-13.log)",
		"host node-07 unreachable since",
		"host node-07 reachable again",
		"node-86: late: still on install benchrig",
		"node-86: finished late",
		"install: 79/86 hosts, 1m0s, ETA 5s",
		"ETA",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
}

// TestConsoleLive: the run stage's live figures are shown every Every
// and as its last line, and parallel phases get no ETA.
func TestConsoleLive(t *testing.T) {
	r := newConsoleRig()
	hosts := hostNames(5)
	r.emit(Event{Kind: StageStarted, Stage: "run", Hosts: hosts})
	for i, h := range hosts {
		r.emit(Event{Kind: StepStarted, Stage: "run", Host: h})
		if i < 2 {
			r.emit(Event{Kind: HostDone, Stage: "run", Host: h, Done: i + 1, Of: 5})
		}
	}
	for i := range 12 { // a minute of 5 s polls
		r.c.Live(fmt.Sprintf("merged tpmC %d.0 over the last 5s of 5 workload hosts", 1000+i))
		r.advance(5 * time.Second)
	}
	r.c.Live("merged tpmC 999.0 over the last 5s of 5 workload hosts")
	r.emit(Event{Kind: StageDone, Stage: "run", Elapsed: time.Minute})
	screen := r.screen.String()
	if got := strings.Count(screen, "   live: "); got != 3 {
		t.Errorf("%d live lines in a minute, want 2 (every 30s) and the last:\n%s", got, screen)
	}
	if !strings.Contains(screen, "   live: merged tpmC 999.0") {
		t.Errorf("the last live figures are not shown:\n%s", screen)
	}
	if strings.Contains(screen, "ETA") {
		t.Errorf("hosts that started together got an ETA:\n%s", screen)
	}
}

// TestConsoleBars: with bars every line still reaches the screen (none is
// lost in a container that ends), and the log gets them without bars.
func TestConsoleBars(t *testing.T) {
	var screen, log syncbuf.Buffer
	c := &Console{W: &screen, Log: &log, Bars: true, Limit: 2}
	hosts := hostNames(4)
	for _, st := range []string{"install", "start", "run"} {
		c.Observe(Event{Kind: StageStarted, Stage: st, Hosts: hosts})
		for i, h := range hosts {
			c.Observe(Event{Kind: StepStarted, Stage: st, Host: h})
			if i == 1 {
				c.Observe(Event{Kind: Message, Stage: st, Host: h, Text: "re-attaching to job " + st})
			}
			c.Observe(Event{Kind: HostDone, Stage: st, Host: h, Done: i + 1, Of: len(hosts)})
		}
		c.Live("merged tpmC 42.0 in " + st)
		if st != "run" {
			c.Observe(Event{Kind: StageDone, Stage: st, Elapsed: time.Second})
		}
	}
	c.Close() // the run stopped in its run stage
	for _, st := range []string{"install", "start", "run"} {
		for _, want := range []string{"== stage " + st, "re-attaching to job " + st, "live: merged tpmC 42.0 in " + st} {
			if !strings.Contains(screen.String(), want) || !strings.Contains(log.String(), want) {
				t.Errorf("%q is not on the screen and in the log:\n%s\n--- log\n%s", want, screen.String(), log.String())
			}
		}
	}
	if !strings.Contains(screen.String(), "4/4 hosts") || strings.Contains(log.String(), "4/4 hosts") {
		t.Errorf("the bars belong on the screen only:\n%s\n--- log\n%s", screen.String(), log.String())
	}
}
