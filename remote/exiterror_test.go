package remote_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestExitErrorQuotesOutputNotScript: a failed command's error, over real
// sshd, names host and status and quotes the last lines of its stderr
// whole, each on a line of its own, and not the command: a step's script
// runs to dozens of lines, which the dry-run shows. A line longer than an
// error message should carry is cut at a character, saying how much more
// the log has.
func TestExitErrorQuotesOutputNotScript(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	script := "# the script's first line: must not be quoted\n" + strings.Repeat(": a line of the step's script\n", 40) +
		`for i in 1 2 3 4 5 6; do echo "line $i of stderr" >&2; done
echo 'pg_basebackup: error: FATAL:  number of requested standby connections exceeds max_wal_senders (currently 10)' >&2
exit 1`
	_, err := s.Run(context.Background(), l.Name(0), remote.Cmd{Args: []string{"sh", "-c", script}})
	var xe *remote.ExitError
	if !errors.As(err, &xe) {
		t.Fatalf("err = %v, want an ExitError", err)
	}
	want := "host " + l.Name(0) + ": command exited with status 1\n" +
		"    line 3 of stderr\n    line 4 of stderr\n    line 5 of stderr\n    line 6 of stderr\n" +
		"    pg_basebackup: error: FATAL:  number of requested standby connections exceeds max_wal_senders (currently 10)"
	if got := err.Error(); got != want {
		t.Errorf("error:\n%s\nwant:\n%s", got, want)
	}

	long := strings.Repeat("é", 3000) // 6000 bytes on one line
	_, err = s.Run(context.Background(), l.Name(0), remote.Cmd{Args: []string{"sh", "-c", `printf '%s\n' "$1" >&2; exit 2`, "sh", long}})
	msg := err.Error()
	if !strings.Contains(msg, "... (4000 bytes more in the log)") || !strings.Contains(msg, strings.Repeat("é", 1000)+"...") {
		t.Errorf("a 6000-byte line is quoted as %d bytes: %.200s", len(msg), msg)
	}
}
