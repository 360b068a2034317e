package orchestrator

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benchrig/benchrig/internal/termsafe"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// hostileOutput is what a hostile host prints, on stdout and stderr: a
// window title (OSC 0), a clipboard write (OSC 52), a screen clear (CSI),
// a carriage-return overwrite, a C1 CSI, and a bidi override that makes
// "exe.txt" read as "txt.exe".
const hostileOutput = `printf '\033]0;owned\007\033]52;c;cm0gLXJmIH4K\007\033[2Jfine\rFAKE\n'; ` +
	`printf 'report\342\200\256txt.exe \302\233 31m\n' >&2; exit 3`

// TestHostileOutputNeutralised runs a step over real sshd on a host that
// prints terminal control sequences and fails: what reaches the console
// (the live lines with --verbose, the console's failure line, the error
// as printed, status and status --watch) shows them as text; the host's
// log file keeps the raw bytes.
func TestHostileOutputNeutralised(t *testing.T) {
	l := sshtest.StartT(t, 1)
	runDir := t.TempDir()
	var screen, live bytes.Buffer
	s, err := remote.NewSSH(l.Targets(), remote.SSHConfig{Output: &live, KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true, SSHConfigFile: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host := l.Name(0)
	list := []stages.Stage{{Name: "install", Steps: []stages.Step{{Host: host, Kind: stages.Exec, What: "check the host",
		Cmd: remote.Cmd{Args: []string{"sh", "-c", hostileOutput}}}}}}
	st := rundir.NewState(filepath.Join(runDir, rundir.StateFile), "plan.yaml", "sum", rundir.StateOptions{}, list, time.Now())
	console := &runner.Console{W: &screen, Log: &screen, LogDir: filepath.Join(runDir, rundir.LogsDir)}
	r := &runner.Runner{Exec: s, ReconnectBudget: -1, Observers: []runner.Observer{
		&rundir.Logs{Dir: filepath.Join(runDir, rundir.LogsDir)}, st, console}}
	runErr := r.Run(context.Background(), list)
	console.Close()
	if runErr == nil {
		t.Fatal("the step's exit 3 did not fail it")
	}

	raw, err := os.ReadFile(filepath.Join(runDir, rundir.LogsDir, "install", host+".log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x1b]0;owned\a", "\x1b[2Jfine\rFAKE", "report\u202etxt.exe", "\u009b 31m"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the host's log lacks the raw %q:\n%q", want, raw)
		}
	}

	var status, watchLine, watchFrame bytes.Buffer
	if err := Status(&status, runDir, false); err != nil {
		t.Fatal(err)
	}
	if err := Watch(context.Background(), &watchLine, runDir, WatchOptions{Every: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := Watch(context.Background(), &watchFrame, runDir, WatchOptions{Every: time.Second, InPlace: true}); err != nil {
		t.Fatal(err)
	}
	frame, ok := strings.CutPrefix(watchFrame.String(), clearScreen)
	if !ok {
		t.Errorf("the watch frame does not start by clearing the screen: %q", watchFrame.String())
	}
	printed := termsafe.String(runErr.Error()) // as main prints it
	for name, out := range map[string]string{
		"live output":       live.String(),
		"console":           screen.String(),
		"the printed error": printed,
		"status":            status.String(),
		"status --watch":    frame,
	} {
		if !safeForTerminal(out) {
			t.Errorf("%s holds a terminal control:\n%q", name, out)
		}
		// The live output has both streams; the error and status
		// quote the end of stderr.
		if name == "live output" && !strings.Contains(out, `\x1b]0;owned\a\x1b]52;c;cm0gLXJmIH4K\a\x1b[2Jfine\rFAKE`) ||
			(name == "live output" || name == "the printed error" || name == "status") && !strings.Contains(out, `report\u202etxt.exe \x9b 31m`) {
			t.Errorf("%s does not show the host's controls as text:\n%q", name, out)
		}
	}
	if !strings.Contains(screen.String(), "FAILED "+host+": check the host: command exited with status 3") {
		t.Errorf("the console's failure line:\n%s", screen.String())
	}
}

// safeForTerminal: valid UTF-8 without C0 controls but tab and newline,
// DEL, C1 controls or format characters (bidi overrides among them).
func safeForTerminal(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\t' && r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			return false
		}
	}
	return true
}
