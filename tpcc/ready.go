package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The start barrier. Hosts that start their measured runs together must
// start after their warm-up, whose length differs per host and grows with
// the connections (a 100k host opens and prepares 200,070): a common
// --start-at fixed before the warm-ups begin holds only if every warm-up
// ends before it. With --ready-file and --start-file a run instead opens
// and warms its connections, writes the ready file (the instant it became
// ready, by its clock), and waits for the start file, which the
// orchestrator writes on every host once all are ready: an instant fixed
// after the last became ready. The run then starts at that instant as
// with --start-at.

// startFileWait bounds the wait for the start file: an orchestrator that
// went away does not leave a run holding its connections for ever.
const startFileWait = 6 * time.Hour

// startFilePoll is how often the start file is looked for.
const startFilePoll = 20 * time.Millisecond

// maxStartFile bounds what is read of the start file: one RFC3339 instant.
const maxStartFile = 128

// WriteFileAtomic writes data to name through a temporary file in the same
// directory, renamed into place, so a reader never sees part of it.
func WriteFileAtomic(name string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// ReadStartFile reads the start instant from a start file: one RFC3339
// time, a trailing newline allowed; ok is false while the file does not
// exist.
func ReadStartFile(name string) (at time.Time, ok bool, err error) {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStartFile+1))
	if err != nil {
		return time.Time{}, false, err
	}
	if len(b) > maxStartFile {
		return time.Time{}, false, fmt.Errorf("start file %s: longer than %d bytes", name, maxStartFile)
	}
	at, err = time.Parse(time.RFC3339Nano, strings.TrimSuffix(string(b), "\n"))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("start file %s: %w", name, err)
	}
	return at, true, nil
}

// awaitStart says this host is ready (cfg.ReadyFile) and waits for the
// start instant (cfg.StartFile): it returns when it became ready and the
// instant.
func awaitStart(ctx context.Context, cfg *RunConfig, out io.Writer) (ready, start time.Time, err error) {
	ready = cfg.Now()
	if err := WriteFileAtomic(cfg.ReadyFile, []byte(ready.UTC().Format(time.RFC3339Nano)+"\n")); err != nil {
		return ready, start, fmt.Errorf("tpcc run: --ready-file: %w", err)
	}
	fmt.Fprintf(out, "Ready: connections open and warmed at %s; waiting for the common start instant (%s)\n", ready.UTC().Format(time.RFC3339Nano), cfg.StartFile)
	if f, ok := out.(interface{ Flush() error }); ok {
		f.Flush()
	}
	deadline := time.NewTimer(startFileWait)
	defer deadline.Stop()
	tick := time.NewTicker(startFilePoll)
	defer tick.Stop()
	for {
		at, ok, err := ReadStartFile(cfg.StartFile)
		if err != nil {
			return ready, start, fmt.Errorf("tpcc run: --start-file: %w", err)
		}
		if ok {
			return ready, at, nil
		}
		select {
		case <-ctx.Done():
			return ready, start, ctx.Err()
		case <-deadline.C:
			return ready, start, fmt.Errorf("tpcc run: no start instant in %s after %s ready", cfg.StartFile, startFileWait)
		case <-tick.C:
		}
	}
}
