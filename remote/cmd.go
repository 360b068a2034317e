package remote

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benchrig/benchrig/internal/redact"
)

// Cmd is one command to run on a host, as an argument vector.
type Cmd struct {
	// Args is the argument vector; Args[0] is the program. It is run
	// through the remote login shell after ShellJoin quotes every element.
	Args []string
	// Env adds variables to the command's environment (passed as
	// `env NAME=value`, so sshd's AcceptEnv does not matter).
	Env map[string]string
	// Dir is the working directory; empty means the login directory.
	Dir string
	// Stdin is written to the command's standard input. It is shown by
	// dry-run and logs, so it must hold no secret itself: a secret is
	// written as a placeholder (Secret.Placeholder) and substituted only
	// when the command really runs.
	Stdin string
	// Secrets resolves the placeholders in Stdin, by name.
	Secrets map[string]Secret
	// Timeout bounds the command; zero means no limit beyond the context.
	Timeout time.Duration
	// Quiet keeps the output out of the live console (it is still
	// captured in Result): status polls, not the work itself.
	Quiet bool
	// Tap, if set, also gets the command's stdout as it arrives, whole
	// or not (Job.FollowFrom counts the log lines it has shown). It is
	// not part of what is sent.
	Tap io.Writer
}

// live says whether c's output may stream to the console: not for
// status polls, and never for a command that was handed a secret, since
// a program may echo its input (callers scrub what they keep).
func (c Cmd) live() bool { return !c.Quiet && len(c.Secrets) == 0 }

// String is the command as it is shown and as it is sent: ShellJoin's line.
func (c Cmd) String() string { return ShellJoin(c) }

// AtOnce bounds a command that returns at once on a host that answers
// (a clock read, a job's status, a file's first line): a round trip and a
// fork. Ten seconds leaves room for a host under load; past it the host
// is holding the call (a hostile or hung host), and the call fails as a
// *TimeoutError instead of holding the run.
const AtOnce = 10 * time.Second

// Secret is a value that is needed to run a command but must never be
// printed, logged or stored (a licence key, a password).
type Secret interface {
	// Name identifies the secret in placeholders and messages.
	Name() string
	// Reveal returns the value; called only when the command runs.
	Reveal() (string, error)
}

// Placeholder is what a Stdin text holds in place of the named secret.
func Placeholder(name string) string { return "{{secret:" + name + "}}" }

// Redacted is what dry-run, logs and state files show for a secret.
const Redacted = redact.Mask

// ShownStdin is Stdin with every secret placeholder replaced by Redacted.
func (c Cmd) ShownStdin() string {
	s := c.Stdin
	for name := range c.Secrets {
		s = strings.ReplaceAll(s, Placeholder(name), Redacted)
	}
	return s
}

// RevealStdin is Stdin with every secret placeholder replaced by its value.
func (c Cmd) RevealStdin() (string, error) {
	s := c.Stdin
	for name, sec := range c.Secrets {
		if !strings.Contains(s, Placeholder(name)) {
			continue
		}
		v, err := sec.Reveal()
		if err != nil {
			return "", fmt.Errorf("secret %s: %w", name, err)
		}
		s = strings.ReplaceAll(s, Placeholder(name), v)
	}
	return s, nil
}

// Result is what a finished command left behind.
type Result struct {
	Host     string
	ExitCode int
	// Stdout and Stderr hold the command's output, up to a cap (the tail
	// is kept); live output is also streamed line by line, host-prefixed.
	Stdout, Stderr []byte
	Duration       time.Duration
}

// Transfer is a file copy between this machine and a host.
type Transfer struct {
	Local  string      // path on this machine
	Remote string      // path on the host
	Mode   fs.FileMode // mode bits of the written file; zero keeps the source's
	// SHA256 is the expected hex digest of the content, if known. A put is
	// skipped when the remote file already has it; a transfer whose result
	// does not match it fails.
	SHA256 string
	// Gzip makes a put send Local gzip-compressed: Remote receives the
	// gzip stream (checked against its own sha256), SHA256 is still the
	// digest of Local's bytes, and whoever unpacks Remote checks it. A
	// binary crosses the operator's link at half its size.
	Gzip bool `json:",omitempty"`
	// MaxBytes, when set, bounds a download: a remote file larger than it
	// (at the start, or growing while it is read) is refused. Collect sets
	// it for every file a host leaves behind; an ad-hoc `benchrig get`
	// leaves it 0 (the operator asked for that file, at any size).
	MaxBytes int64
	// Timeout, when set, bounds a download's time: a host that sends
	// slowly, or never, cannot hold a stage forever.
	Timeout time.Duration
}

// String describes the transfer for dry-run and logs.
func (t Transfer) String() string {
	s := Quote(t.Local) + " -> " + Quote(t.Remote)
	if t.Mode != 0 {
		s += fmt.Sprintf(" (mode %04o)", t.Mode.Perm())
	}
	if t.SHA256 != "" {
		s += " sha256:" + t.SHA256
	}
	if t.Gzip {
		s += " (gzip)"
	}
	return s
}

// DownloadString describes the transfer as a download: remote -> local.
func (t Transfer) DownloadString() string {
	return Quote(t.Remote) + " -> " + Quote(t.Local)
}

// ExitError is a remote command that ran and exited non-zero (or died of a
// signal). It is the command's failure, not the connection's.
type ExitError struct {
	Host       string
	Cmd        string // ShellJoin of the command
	Code       int    // exit status; -1 when killed by a signal
	Signal     string // signal name when killed by one
	StderrTail string // last lines of stderr, for the message
}

// Error names the host and the exit status and quotes the end of the
// command's stderr, whole lines on lines of their own. It does not quote
// the command: a step's is a script of many lines, which the dry-run
// shows, and the host's log keeps with the whole output.
func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host %s: command exited", e.Host)
	if e.Signal != "" {
		fmt.Fprintf(&b, " on signal %s", e.Signal)
	} else {
		fmt.Fprintf(&b, " with status %d", e.Code)
	}
	b.WriteString(quoteTail(e.StderrTail))
	return b.String()
}

// maxTailLine bounds a quoted line of a command's output in an error
// message (a host may print a megabyte without a newline); the log keeps
// it whole.
const maxTailLine = 2000

// quoteTail is the end of a command's output as an error message quotes
// it: each line on a line of its own, indented, after the message's
// first line (which summaries show alone); "" when there is none.
func quoteTail(tail string) string {
	tail = strings.Trim(tail, "\n")
	if strings.TrimSpace(tail) == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(tail, "\n") {
		line = strings.TrimRight(line, "\r")
		if len(line) > maxTailLine {
			cut := maxTailLine
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = fmt.Sprintf("%s... (%d bytes more in the log)", line[:cut], len(line)-cut)
		}
		b.WriteString("\n    ")
		b.WriteString(line)
	}
	return b.String()
}

// TransportError is a failure to reach a host or to keep talking to it:
// dial, handshake, authentication, host key, a dropped connection, a
// channel that closed without an exit status. Retrying may help; the
// remote command, if it started, may or may not have run.
type TransportError struct {
	Host string
	Op   string // "dial", "handshake", "session", "sftp", ...
	Err  error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("host %s: %s: %v", e.Host, e.Op, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Target is how to reach one host. Empty fields are filled from the
// user's ~/.ssh/config (HostName, Port, User, IdentityFile, ProxyJump),
// then from OpenSSH's defaults, as ssh(1) would.
type Target struct {
	Name          string   // the plan's name for the host: output prefix and executor key
	Host          string   // address or ssh_config alias to dial; empty means Name
	Port          int      // 0: from ssh_config, else 22
	User          string   // empty: from ssh_config, else the local user
	IdentityFiles []string // private keys to offer, after the agent's
	ProxyJump     string   // "[user@]host[:port][,...]", as ssh -J; "none" disables ssh_config's
}
