package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
)

// Console is the observer that prints a run as a person follows it:
// stage headers and notes, hosts as they finish, search verdicts, check
// tables. With Listing it is the dry-run's output instead: after each
// phase, every step each host was sent, in host order, with constant
// scripts printed once by name.
type Console struct {
	W       io.Writer
	Listing bool

	shown map[string]bool // scripts the listing has printed
}

// Observe prints e.
func (c *Console) Observe(e Event) error {
	w := c.W
	switch e.Kind {
	case StageSkipped:
		fmt.Fprintf(w, "== stage %s: done in an earlier attempt, skipped\n", e.Stage)
	case StageStarted:
		mode := ""
		switch n := len(e.Hosts); {
		case e.Serial && n > 1:
			mode = ", one host at a time"
		case n > 1:
			mode = ", in parallel"
		}
		fmt.Fprintf(w, "== stage %s: %d host%s%s\n", e.Stage, len(e.Hosts), plural(len(e.Hosts)), mode)
		for _, n := range e.Notes {
			fmt.Fprintf(w, "   note: %s\n", n)
		}
		if e.Check != nil {
			fmt.Fprintf(w, "   check: %s\n", e.Check)
		}
	case StageChecked:
		fmt.Fprint(w, e.Text)
	case StageDone:
		if !c.Listing {
			fmt.Fprintf(w, "   stage %s done in %s\n", e.Stage, e.Elapsed.Round(time.Millisecond))
		}
	case StepDone:
		if e.CheckFailed {
			fmt.Fprintf(w, "   %s: %s finished, but its checks failed (exit %d); going on\n", e.Host, e.Step.What, e.Step.CheckExit)
		}
	case HostDone:
		if !c.Listing && e.Of > 1 {
			fmt.Fprintf(w, "   ok   %s (%d/%d)\n", e.Host, e.Done, e.Of)
		}
	case PhaseDone:
		if c.Listing {
			c.list(e.Hosts, e.Listing)
		}
	case Message:
		fmt.Fprintf(w, "   %s: %s\n", e.Host, e.Text)
	case HostUnreachable:
		fmt.Fprintf(w, "   %s (%s): %v\n", UnreachableText(e.Host, e.Since, e.Attempt, e.BudgetLeft), e.Step.What, e.Err)
	case HostReconnected:
		fmt.Fprintf(w, "   host %s reachable again after %s (%d attempt%s); re-attaching: %s\n", e.Host, e.Elapsed.Round(time.Millisecond), e.Attempt, plural(e.Attempt), e.Step.What)
	case SearchTrying:
		fmt.Fprintf(w, "   search: trying --%s=%d\n", e.Text, e.Value)
	case SearchVerdict:
		earlier := ""
		if e.Earlier {
			earlier = " (an earlier attempt)"
		}
		fmt.Fprintf(w, "   search: --%s=%d %s%s\n", e.Text, e.Point.Value, passText(e.Point.Pass), earlier)
	case SearchDone:
		if e.Value > 0 {
			fmt.Fprintf(w, "   search: the largest passing --%s is %d\n", e.Text, e.Value)
		} else {
			fmt.Fprintf(w, "   search: no tried value passed\n")
		}
	}
	return nil
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
