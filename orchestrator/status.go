package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/benchrig/benchrig/internal/termsafe"
	"github.com/benchrig/benchrig/orchestrator/rundir"
)

// StatusArgs are `benchrig status`'s: the run, and how to show it.
type StatusArgs struct {
	Dir     string
	PerHost bool          `flag:"hosts" usage:"one line per host, not per stage"`
	Watch   bool          `flag:"watch,w" usage:"follow the run until it ends"`
	JSON    bool          `flag:"json" usage:"machine-readable output (benchrig.status/v1)"`
	Every   time.Duration `flag:"interval" usage:"refresh period of --watch"`
	// Terminal says w is a terminal: --watch then redraws in place.
	Terminal bool
}

// ShowStatus prints the run's status once, or follows it with --watch.
func ShowStatus(ctx context.Context, w io.Writer, a StatusArgs) error {
	if a.Every < 100*time.Millisecond || a.Every > time.Hour {
		return &UsageError{errors.New("status: --interval: from 100ms to 1h")}
	}
	switch {
	case a.Watch:
		return Watch(ctx, w, a.Dir, WatchOptions{Every: a.Every, JSON: a.JSON, InPlace: !a.JSON && a.Terminal})
	case a.JSON:
		return StatusJSON(w, a.Dir)
	}
	return Status(w, a.Dir, a.PerHost)
}

// StatusJSON writes the run's status as one JSON document (rundir.View,
// schema benchrig.status/v1).
func StatusJSON(w io.Writer, runDir string) error {
	v, err := rundir.NewView(runDir)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WatchOptions say how Watch shows a run.
type WatchOptions struct {
	Every time.Duration
	// InPlace redraws the whole view (a terminal); otherwise a plain line
	// is printed whenever the run's progress changes.
	InPlace bool
	// JSON prints one status document per line (JSON lines) on each
	// change, for a program that follows the run.
	JSON bool
	Now  func() time.Time
}

// clearScreen moves the cursor home and clears the terminal: each frame
// of an in-place watch replaces the last.
const clearScreen = "\x1b[H\x1b[2J"

// Watch shows the run in runDir until no benchrig process drives it any
// more (it finished, failed or was stopped) or ctx ends; the last frame
// or line is its final state.
func Watch(ctx context.Context, w io.Writer, runDir string, o WatchOptions) error {
	if o.Every <= 0 {
		o.Every = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	last := ""
	for {
		v, err := rundir.NewView(runDir)
		if err != nil {
			return err
		}
		switch {
		case o.JSON:
			data, err := json.Marshal(v)
			if err != nil {
				return err
			}
			// Updated times aside, the same document is not repeated.
			key := string(data)
			if v.Live != nil {
				l := *v.Live
				l.Updated = time.Time{}
				vv := *v
				vv.Live = &l
				d, _ := json.Marshal(&vv)
				key = string(d)
			}
			if key != last {
				last = key
				if _, err := fmt.Fprintf(w, "%s\n", data); err != nil {
					return err
				}
			}
		case o.InPlace:
			st, err := rundir.ReadState(filepath.Join(runDir, rundir.StateFile))
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := rundir.PrintWatch(&b, v, st, o.Now()); err != nil {
				return err
			}
			// The frame quotes what hosts sent; only our own clear
			// screen acts on the terminal.
			if _, err := io.WriteString(w, clearScreen+termsafe.String(b.String())); err != nil {
				return err
			}
		default:
			line := termsafe.String(v.Line(o.Now()))
			key := line[len("15:04:05"):]
			if key != last {
				last = key
				if _, err := fmt.Fprintln(w, line); err != nil {
					return err
				}
			}
		}
		if v.Over() {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.Every):
		}
	}
}
