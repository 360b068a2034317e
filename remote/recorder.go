package remote

import (
	"context"
	"strings"
	"sync"
)

// Display is how a command is shown in dry-run output, logs and state:
// the exact line sent (ShellJoin), then its standard input, if any, with
// secrets masked, each stdin line marked "<<< ".
func (c Cmd) Display() string {
	line := ShellJoin(c)
	if c.Stdin == "" {
		return line
	}
	var b strings.Builder
	b.WriteString(line)
	for _, l := range strings.Split(strings.TrimRight(c.ShownStdin(), "\n"), "\n") {
		b.WriteString("\n<<< ")
		b.WriteString(l)
	}
	return b.String()
}

// Entry is one call a Recorder saw.
type Entry struct {
	Host string
	Op   string // "run", "put" or "get"
	Text string // Cmd.Display, Transfer.String (put) or Transfer.DownloadString (get)
}

// Recorder is the executor behind --dry-run: it connects nowhere, records
// every call in order and reports success. Tests use it as the fake at the
// orchestrator's seam; Fail makes chosen calls fail.
type Recorder struct {
	// Fail, if set, is asked about every call; a non-nil error is returned
	// to the caller instead of success (and the call is still recorded).
	Fail func(e Entry) error

	mu      sync.Mutex
	entries []Entry
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

func (r *Recorder) record(e Entry) error {
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
	if r.Fail != nil {
		return r.Fail(e)
	}
	return nil
}

// Run records c and returns a zero exit status.
func (r *Recorder) Run(ctx context.Context, host string, c Cmd) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{Host: host}, err
	}
	err := r.record(Entry{Host: host, Op: "run", Text: c.Display()})
	return Result{Host: host}, err
}

// Put records an upload.
func (r *Recorder) Put(ctx context.Context, host string, t Transfer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.record(Entry{Host: host, Op: "put", Text: t.String()})
}

// Get records a download.
func (r *Recorder) Get(ctx context.Context, host string, t Transfer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.record(Entry{Host: host, Op: "get", Text: t.DownloadString()})
}

// Entries returns a copy of what was recorded, in call order.
func (r *Recorder) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Entry(nil), r.entries...)
}

// StartJob records a detached job as one call: dry-run lists the job's
// command, not the wrapper that detaches it.
func (r *Recorder) StartJob(ctx context.Context, j Job, c Cmd) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.record(Entry{Host: j.Host, Op: "job", Text: "job " + j.Name + ": " + c.Display()})
}

// WaitJob reports the recorded job as finished with status 0.
func (r *Recorder) WaitJob(ctx context.Context, j Job) (JobStatus, error) {
	return JobStatus{State: JobExited}, ctx.Err()
}

// StopJob records a job's stop as one call.
func (r *Recorder) StopJob(ctx context.Context, j Job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.record(Entry{Host: j.Host, Op: "job", Text: "stop job " + j.Name})
}
