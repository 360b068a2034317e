package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Runner is what detached jobs need from an executor: SSH, Local and the
// Recorder (so dry-run shows the job scripts) all satisfy it.
type Runner interface {
	Run(ctx context.Context, host string, c Cmd) (Result, error)
}

// Job is a command running detached on a host: started in its own
// session (setsid) with stdin, stdout and stderr redirected, so it
// survives the orchestrator's disconnect (a 6-hour import, a 30-minute
// run). It leaves three files in Dir: Name.pid, Name.log (stdout and
// stderr) and Name.exit (its exit status, written when it ends). A Job is
// a plain value: re-attach after a restart by building the same Job{Host,
// Dir, Name} again.
type Job struct {
	Host string
	Dir  string // remote directory for the pid, log and exit files
	Name string // file name stem; letters, digits, '.', '_', '-'
}

// JobState is what Status found.
type JobState string

const (
	JobNone    JobState = "none"    // never started (no pid file)
	JobRunning JobState = "running" // the process is alive
	JobExited  JobState = "exited"  // it ended and recorded its status
	JobLost    JobState = "lost"    // it is gone without a status (killed -9, host rebooted)
)

// JobStatus is a job's state, pid and, once exited, exit code.
type JobStatus struct {
	State    JobState
	Pid      int
	ExitCode int
}

// Killed says whether the job was killed rather than ending on its own:
// its process is gone without an exit record (the whole process group got
// SIGKILL, the host rebooted), or the command died of SIGKILL (exit 137:
// kill -9, the OOM killer). Such a job did not fail; it was stopped, and a
// resumed run starts it again.
func (st JobStatus) Killed() bool {
	return st.State == JobLost || st.State == JobExited && st.ExitCode == exitSIGKILL
}

// exitSIGKILL is the status sh reports for a command killed by SIGKILL.
const exitSIGKILL = 128 + 9

var jobName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func (j Job) check() error {
	if !jobName.MatchString(j.Name) || j.Name == "." || j.Name == ".." {
		return fmt.Errorf("job name %q: use letters, digits, '.', '_', '-'", j.Name)
	}
	if j.Dir == "" {
		return fmt.Errorf("job %s: no directory", j.Name)
	}
	return nil
}

// Log is the path of the job's output file on the host.
func (j Job) Log() string { return path.Join(j.Dir, j.Name+".log") }

// marker is put in the job's environment so Status can tell the job's pid
// from a recycled one.
func (j Job) marker() string { return path.Join(j.Dir, j.Name) }

// The job scripts are constants; values reach them only as positional
// parameters ($1 dir, $2 name, ...), never spliced into shell text.
const jobVars = `dir=$1 name=$2
pidf=$dir/$name.pid exitf=$dir/$name.exit logf=$dir/$name.log
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	# A recycled pid belongs to a process without our marker.
	if [ -r "/proc/$1/environ" ]; then
		tr '\0' '\n' <"/proc/$1/environ" | grep -qxF "BENCHRIG_JOB=$dir/$name" || return 1
	fi
	return 0
}
# group_alive: is any process of group $1 still running? Zombies do not
# count: an init that reaps slowly (some containers' pid 1) would keep a
# dead job "alive" for seconds.
group_alive() {
	if command -v ps >/dev/null 2>&1; then
		ps -e -o pgid= -o stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'
	else
		kill -0 "-$1" 2>/dev/null
	fi
}
`

// startJob refuses to start a second copy, then runs the command line $3
// under a wrapper shell in a new session. The wrapper traps TERM (a
// handler, not an ignore, so the command itself still dies of it) to
// outlive a group-wide kill long enough to record the status.
const startJob = jobVars + `mkdir -p -- "$dir"
if [ -f "$pidf" ] && [ ! -f "$exitf" ] && alive "$(cat "$pidf")"; then
	echo "job $name already running as pid $(cat "$pidf")" >&2
	exit 17
fi
rm -f -- "$exitf" "$pidf"
# The wrapper records its own pid: setsid forks when it happens to lead a
# process group, so $! would not be the job's.
BENCHRIG_JOB=$dir/$name setsid sh -c 'trap : TERM INT HUP
echo $$ >"$4.tmp" && mv -f -- "$4.tmp" "$4"
sh -c "$1" </dev/null >>"$2" 2>&1
st=$?
echo "$st" >"$3.tmp" && mv -f -- "$3.tmp" "$3"' sh "$3" "$logf" "$exitf" "$pidf" </dev/null >/dev/null 2>&1 &
i=0
while [ ! -f "$pidf" ]; do
	if [ "$i" -ge 100 ]; then
		echo "job $name did not start within 10s" >&2
		exit 1
	fi
	sleep 0.1
	i=$((i+1))
done
cat "$pidf"`

// statusJob looks for the exit record again after finding the process
// gone: a job that ended between the two looks would otherwise be "lost"
// (and a re-attach would start it again).
const statusJob = jobVars + `if [ ! -f "$pidf" ]; then echo none; exit 0; fi
pid=$(cat "$pidf")
if [ -f "$exitf" ]; then echo "exited $pid $(cat "$exitf")"; exit 0; fi
if alive "$pid"; then echo "running $pid"
elif [ -f "$exitf" ]; then echo "exited $pid $(cat "$exitf")"
else echo "lost $pid"; fi`

// stopJob sends TERM to the job's process group (dash's kill takes no
// "--", and a negative pid after the signal is a group), waits up to $3 tenths of
// a second, then sends KILL.
const stopJob = jobVars + `[ -f "$pidf" ] || exit 0
pid=$(cat "$pidf")
alive "$pid" || exit 0
kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || exit 0
i=0
while group_alive "$pid"; do
	if [ "$i" -ge "$3" ]; then
		kill -KILL "-$pid" 2>/dev/null
		break
	fi
	sleep 0.1
	i=$((i+1))
done`

// followJob prints the log from line $3 on and keeps printing until the
// job's process ends (GNU tail --pid).
const followJob = jobVars + `pid=$(cat "$pidf" 2>/dev/null) || { echo "job $name was not started" >&2; exit 1; }
exec tail -n "+$3" -s 0.2 --pid="$pid" -f -- "$logf"`

// StartJob starts c detached on host as job name, with its files in dir,
// and returns once it runs. It fails (an ExitError with code 17) if the
// job is already running. c.Stdin is not supported: the job reads
// /dev/null, and a secret must not sit in a file on the host. c.Timeout
// does not apply (the job is meant to outlive this call); bound it with
// Wait's context and Stop.
func StartJob(ctx context.Context, r Runner, host, dir, name string, c Cmd) (Job, error) {
	j := Job{Host: host, Dir: dir, Name: name}
	if err := j.check(); err != nil {
		return j, fmt.Errorf("host %s: %w", host, err)
	}
	if c.Stdin != "" {
		return j, fmt.Errorf("host %s: job %s: detached jobs take no stdin", host, name)
	}
	_, err := r.Run(ctx, host, Cmd{Args: []string{"sh", "-c", startJob, "sh", j.Dir, j.Name, ShellJoin(c)}, Quiet: true, Timeout: AtOnce})
	if err != nil {
		return j, fmt.Errorf("host %s: start job %s: %w", host, name, err)
	}
	return j, nil
}

// Status reports whether the job runs, exited (with its code) or was lost.
func (j Job) Status(ctx context.Context, r Runner) (JobStatus, error) {
	if err := j.check(); err != nil {
		return JobStatus{}, err
	}
	res, err := r.Run(ctx, j.Host, Cmd{Args: []string{"sh", "-c", statusJob, "sh", j.Dir, j.Name}, Quiet: true, Timeout: AtOnce})
	if err != nil {
		return JobStatus{}, fmt.Errorf("host %s: status of job %s: %w", j.Host, j.Name, err)
	}
	st, err := parseJobStatus(res.Stdout)
	if err != nil {
		return JobStatus{}, fmt.Errorf("host %s: status of job %s: %w", j.Host, j.Name, err)
	}
	return st, nil
}

// Bounds on what a host answers to statusJob: the answer is one short
// line; the pid file and exit file it quotes are the host's to write, so
// a hostile or broken host may put anything there. A pid is what
// Linux's pid_max allows at most (2^22); an exit code is what sh's $?
// holds (0..255). A pid of 0 or a negative one would make stopJob's
// "kill -- -$pid" signal another group: refused here, before use.
const (
	maxJobStatusBytes = 128
	maxJobPid         = 1 << 22
	maxJobExitCode    = 255
)

func parseJobStatus(b []byte) (JobStatus, error) {
	if len(b) > maxJobStatusBytes {
		return JobStatus{}, fmt.Errorf("job status: %d bytes, more than the %d a status line takes", len(b), maxJobStatusBytes)
	}
	out := string(b)
	f := strings.Fields(out)
	if len(f) == 0 {
		// The Recorder (dry-run) returns no output: report "none".
		return JobStatus{State: JobNone}, nil
	}
	st := JobStatus{State: JobState(f[0])}
	var err error
	switch {
	case strings.Count(strings.TrimRight(out, "\n"), "\n") > 0:
		err = errors.New("more than one line")
	case st.State == JobNone && len(f) == 1:
		return st, nil
	case (st.State == JobRunning || st.State == JobLost) && len(f) == 2:
		st.Pid, err = jobNumber(f[1], "pid", 1, maxJobPid)
	case st.State == JobExited && len(f) == 3:
		if st.Pid, err = jobNumber(f[1], "pid", 1, maxJobPid); err == nil {
			st.ExitCode, err = jobNumber(f[2], "exit code", 0, maxJobExitCode)
		}
	default:
		err = errors.New("unexpected")
	}
	if err != nil {
		// %q: the host's bytes are quoted, never printed raw.
		return JobStatus{}, fmt.Errorf("job status %q: %w", strings.TrimSpace(out), err)
	}
	return st, nil
}

// jobNumber is a decimal of ASCII digits only (no sign, no leading
// zeros beyond "0") within [lo, hi].
func jobNumber(s, what string, lo, hi int) (int, error) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("%s %q is not a decimal number", what, s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%s %q is not a decimal number", what, s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s %q is outside %d..%d", what, s, lo, hi)
	}
	return n, nil
}

// Wait polls the job every poll until it is no longer running and returns
// its final status; ctx bounds the wait (the job keeps running).
func (j Job) Wait(ctx context.Context, r Runner, poll time.Duration) (JobStatus, error) {
	if poll <= 0 {
		poll = time.Second
	}
	for {
		st, err := j.Status(ctx, r)
		if err != nil || st.State != JobRunning {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("host %s: wait for job %s: %w", j.Host, j.Name, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// Tail returns the last n lines of the job's log.
func (j Job) Tail(ctx context.Context, r Runner, n int) (string, error) {
	if err := j.check(); err != nil {
		return "", err
	}
	res, err := r.Run(ctx, j.Host, Cmd{Args: []string{"tail", "-n", strconv.Itoa(n), "--", j.Log()}, Quiet: true})
	if err != nil {
		return "", fmt.Errorf("host %s: tail job %s: %w", j.Host, j.Name, err)
	}
	return string(res.Stdout), nil
}

// Follow streams the job's log from line `from` (1 = the start) to the
// executor's live output until the job ends or ctx is cancelled: this is
// how a re-attached orchestrator watches a long run.
func (j Job) Follow(ctx context.Context, r Runner, from int) error {
	_, err := j.FollowFrom(ctx, r, from)
	return err
}

// FollowFrom is Follow that also returns the line to go on from: from
// plus the whole lines it showed, also when the connection broke, so a
// re-attach shows no line twice. (A line cut by the break was shown in
// part and is shown again whole.)
func (j Job) FollowFrom(ctx context.Context, r Runner, from int) (next int, err error) {
	if from < 1 {
		from = 1
	}
	if err := j.check(); err != nil {
		return from, err
	}
	var lines lineCounter
	_, err = r.Run(ctx, j.Host, Cmd{Args: []string{"sh", "-c", followJob, "sh", j.Dir, j.Name, strconv.Itoa(from)}, Tap: &lines})
	next = from + int(lines.n.Load())
	if err != nil {
		return next, fmt.Errorf("host %s: follow job %s: %w", j.Host, j.Name, err)
	}
	return next, nil
}

// lineCounter counts newlines written to it.
type lineCounter struct{ n atomic.Int64 }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte{'\n'})))
	return len(p), nil
}

// Stop sends SIGTERM to the job's process group, and SIGKILL if it is
// still there after grace. Stopping a job that is not running is a no-op.
func (j Job) Stop(ctx context.Context, r Runner, grace time.Duration) error {
	if err := j.check(); err != nil {
		return err
	}
	tenths := int(grace / (100 * time.Millisecond))
	_, err := r.Run(ctx, j.Host, Cmd{Args: []string{"sh", "-c", stopJob, "sh", j.Dir, j.Name, strconv.Itoa(tenths)}})
	if err != nil {
		return fmt.Errorf("host %s: stop job %s: %w", j.Host, j.Name, err)
	}
	return nil
}
