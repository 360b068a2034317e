package runner

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// The start barrier of a stage's Ready jobs (stages.Step.Ready): each
// job opens and warms its connections, writes its ready file and waits
// for its start file; the runner polls the ready files and, once every
// host's job is ready or has ended, writes one instant (now + StartLead,
// so after the last host became ready) into every ready host's start
// file. A warm-up of any length then still ends in one common start,
// which a --start-at fixed before the warm-ups could not promise.

// barrier is one phase's barrier: the hosts, their jobs' files, and which
// jobs have ended (a job that ends before it is ready is not waited for).
type barrier struct {
	mu    sync.Mutex
	hosts []string
	files map[string][2]string // host: ready file, start file
	ended map[string]bool
	err   chan error
	start time.Time // the start instant, once chosen
}

// startInstant is the barrier's start instant, once chosen.
func (b *barrier) startInstant() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.start, !b.start.IsZero()
}

func newBarrier(hosts []string) *barrier {
	return &barrier{hosts: hosts, files: map[string][2]string{}, ended: map[string]bool{}, err: make(chan error, 1)}
}

// barrierFiles are a job's ready and start files, beside its log.
func barrierFiles(dir, job string) (ready, start string) {
	return path.Join(dir, job+".ready"), path.Join(dir, job+".start")
}

// fromDir is file (a path from the login directory, as the runner's
// commands name it) as seen from dir, where the job runs.
func fromDir(dir, file string) string {
	if dir == "" || path.IsAbs(file) {
		return file
	}
	if rel, err := filepath.Rel(dir, file); err == nil && !path.IsAbs(dir) {
		return filepath.ToSlash(rel)
	}
	return file
}

// join says host h's job is about to start with these files.
func (b *barrier) join(h, ready, start string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[h] = [2]string{ready, start}
}

// end says host h's job (or all its steps) ended.
func (b *barrier) end(h string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended[h] = true
}

func (b *barrier) state(h string) (files [2]string, joined, ended bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	files, joined = b.files[h]
	return files, joined, b.ended[h]
}

// readyScript prints "ready " and the ready file's first line when it
// exists, nothing otherwise; it always succeeds.
const readyScript = `if [ -f "$1" ]; then printf 'ready '; head -c 128 -- "$1"; fi; exit 0`

// startScript writes the start instant ($2) into the start file ($1)
// through a renamed temporary file: the waiting run never reads half of
// it.
const startScript = `printf '%s\n' "$2" > "$1.tmp" && mv -f -- "$1.tmp" "$1"`

// barrierPoll is how often the ready files are read.
const barrierPoll = time.Second

// runBarrier waits for every host's job to be ready (or to end), then
// writes the start instant. It returns an error only for a start file it
// could not write; an interrupted phase ends it quietly.
func (r *Runner) runBarrier(ctx context.Context, st stages.Stage, b *barrier) error {
	if _, native := r.Exec.(JobExecutor); native {
		// An executor that runs jobs itself (the dry-run Recorder) has
		// no ready files to read: the steps' listing shows the barrier's
		// flags, and the jobs end at once.
		return nil
	}
	poll := r.JobPoll
	if poll <= 0 || poll > barrierPoll {
		poll = barrierPoll
	}
	ready := map[string]time.Time{}
	var order []string
	for {
		pending := 0
		for _, h := range b.hosts {
			if _, ok := ready[h]; ok {
				continue
			}
			files, joined, ended := b.state(h)
			if ended {
				continue
			}
			pending++
			if !joined {
				continue
			}
			res, err := r.Exec.Run(ctx, h, remote.Cmd{Args: []string{"sh", "-c", readyScript, "sh", files[0]}, Quiet: true, Timeout: remote.AtOnce})
			if err != nil {
				continue // the host's own step re-attaches; ask again
			}
			if text, ok := strings.CutPrefix(string(res.Stdout), "ready "); ok && strings.TrimSpace(text) != "" {
				// An empty file is one being written; text that is not an
				// instant is a ready host whose time is unknown (zero).
				at, _ := time.Parse(time.RFC3339Nano, strings.TrimSpace(text))
				ready[h] = at
				order = append(order, h)
				pending--
			}
		}
		if pending == 0 {
			break
		}
		if err := r.sleep(ctx, poll); err != nil {
			return nil
		}
	}
	if len(ready) == 0 {
		return nil
	}
	start := r.now().Add(r.StartLead).UTC()
	b.mu.Lock()
	b.start = start
	b.mu.Unlock()
	r.say(order[len(order)-1], barrierText(b.hosts, ready, start))
	instant := start.Format(time.RFC3339Nano)
	for _, h := range b.hosts {
		if _, ok := ready[h]; !ok {
			continue
		}
		files, _, _ := b.state(h)
		cmd := remote.Cmd{Args: []string{"sh", "-c", startScript, "sh", files[1], instant}, Quiet: true, Timeout: remote.AtOnce}
		// Safe to repeat: a dropped connection is redialed within the
		// reconnect budget, as a step's would be.
		s := stages.Step{Host: h, Kind: stages.Exec, What: "write the start instant", Idempotent: true, Cmd: cmd}
		err := r.retrying(ctx, Event{Stage: st.Name, Host: h, Step: s}, s, func(ctx context.Context) error {
			_, err := r.Exec.Run(ctx, h, cmd)
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("stage %s: host %s: start barrier: writing the start instant: %w", st.Name, h, err)
		}
	}
	return nil
}

// barrierText says when the hosts became ready and when they start.
func barrierText(hosts []string, ready map[string]time.Time, start time.Time) string {
	var first, last time.Time
	for _, at := range ready {
		if at.IsZero() {
			continue
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if last.IsZero() || at.After(last) {
			last = at
		}
	}
	text := fmt.Sprintf("start barrier: %d of %d hosts ready", len(ready), len(hosts))
	if !first.IsZero() {
		text += fmt.Sprintf(", their warm-ups ending %s apart (by their clocks)", last.Sub(first).Round(time.Millisecond))
	}
	return text + "; all start at " + start.Format(time.RFC3339Nano)
}
