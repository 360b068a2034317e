package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/hostmetrics"
)

func TestHoststatCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "host.jsonl")
	// --duration: stops by itself; flags after nothing but each other.
	code, _, errOut := runCLI(t, "hoststat", "--interval", "100ms", "--duration", "450ms", "--out", out, "--host", "w1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// A signal (main cancels the context): exit 0, and --out appends.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(350*time.Millisecond, cancel)
	var so, se bytes.Buffer
	if code := run(ctx, []string{"benchrig", "hoststat", "--interval", "100ms", "-o", out, "--host", "w1"}, &so, &se); code != exitOK {
		t.Fatalf("after a signal: exit %d: %s", code, se.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ss, err := hostmetrics.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) < 4 || ss[0].Host != "w1" || ss[0].Schema != hostmetrics.Schema {
		t.Errorf("%d samples: %+v", len(ss), ss)
	}
	for _, args := range [][]string{{"hoststat", "--interval", "1ms"}, {"hoststat", "extra"}, {"hoststat", "--duration", "-1s"}} {
		if code, _, _ := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}
