package tpcc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAwaitStart: the run writes its ready file (its instant), waits,
// and returns the instant the start file holds once it appears.
func TestAwaitStart(t *testing.T) {
	dir := t.TempDir()
	cfg := RunConfig{ReadyFile: filepath.Join(dir, "run.ready"), StartFile: filepath.Join(dir, "run.start"), Now: time.Now}
	start := time.Date(2026, 12, 2, 12, 0, 10, 123456789, time.UTC)
	go func() {
		for {
			if _, err := os.Stat(cfg.ReadyFile); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		if err := WriteFileAtomic(cfg.StartFile, []byte(start.Format(time.RFC3339Nano)+"\n")); err != nil {
			t.Error(err)
		}
	}()
	var out bytes.Buffer
	began := time.Now()
	ready, at, err := awaitStart(context.Background(), &cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !at.Equal(start) {
		t.Errorf("start %s, want %s", at, start)
	}
	if ready.Before(began) || time.Since(began) < 100*time.Millisecond {
		t.Errorf("ready at %s (began %s), returned after %s: did not wait for the start file", ready, began, time.Since(began))
	}
	b, err := os.ReadFile(cfg.ReadyFile)
	if got, perr := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b))); err != nil || perr != nil || !got.Equal(ready.UTC()) {
		t.Errorf("ready file %q, want %s", b, ready.UTC())
	}
	if !strings.Contains(out.String(), "Ready: connections open and warmed") {
		t.Errorf("output %q", out.String())
	}
}

// TestReadStartFile: absent is not an error; the instant is read
// strictly and boundedly.
func TestReadStartFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "s")
	if _, ok, err := ReadStartFile(name); ok || err != nil {
		t.Errorf("absent: %v, %v", ok, err)
	}
	for text, good := range map[string]bool{
		"2026-12-02T12:00:10Z\n":           true,
		"2026-12-02T12:00:10.5+01:00":      true,
		"soon\n":                           false,
		"2026-12-02T12:00:10Z\nrm -rf /\n": false,
		strings.Repeat("9", 200):           false,
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, ok, err := ReadStartFile(name)
		if ok != good || (err == nil) != good {
			t.Errorf("%q: ok %v, err %v", text, ok, err)
		}
	}
}

// TestAwaitStartInterrupted: a cancelled run stops waiting.
func TestAwaitStartInterrupted(t *testing.T) {
	dir := t.TempDir()
	cfg := RunConfig{ReadyFile: filepath.Join(dir, "r"), StartFile: filepath.Join(dir, "s"), Now: time.Now}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := awaitStart(ctx, &cfg, &bytes.Buffer{}); err == nil {
		t.Fatal("returned without a start file")
	}
}
