package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/remote"
)

func TestLocalRun(t *testing.T) {
	var out syncbuf.Buffer
	l := remote.NewLocal(remote.LocalConfig{Output: &out, Hosts: []string{"local", "other-host"}, KillGrace: time.Second})
	ctx := context.Background()
	res, err := l.Run(ctx, "local", remote.Cmd{Args: []string{"sh", "-c", `echo "$X" in $(pwd)`}, Env: map[string]string{"X": "a'b"}, Dir: "/"})
	if err != nil || string(res.Stdout) != "a'b in /\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
	if !strings.Contains(out.String(), "local      | a'b in /\n") {
		t.Errorf("prefix not padded to the longest host:\n%q", out.String())
	}
	_, err = l.Run(ctx, "local", remote.Cmd{Args: []string{"sh", "-c", "exit 9"}})
	var xe *remote.ExitError
	if !errors.As(err, &xe) || xe.Code != 9 {
		t.Errorf("exit 9: %v", err)
	}
	_, err = l.Run(ctx, "local", remote.Cmd{Args: []string{"sh", "-c", "kill -TERM $$"}})
	// sh -c may or may not exec the inner command: dying of TERM shows
	// as the signal or as the shell's 128+15.
	if !errors.As(err, &xe) || (xe.Signal != "TERM" && xe.Code != 143) {
		t.Errorf("signal: %v", err)
	}
	marker := filepath.Join(t.TempDir(), "m")
	_, err = l.Run(ctx, "local", remote.Cmd{Args: []string{"sh", "-c", `sleep 2; touch "$1"`, "sh", marker}, Timeout: 200 * time.Millisecond})
	if !errors.As(err, new(*remote.TimeoutError)) {
		t.Errorf("timeout: %v", err)
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("timed-out command's child kept running")
	}
	if _, err := l.Run(ctx, "nope", remote.Cmd{Args: []string{"true"}}); !errors.As(err, new(*remote.UnknownHostError)) {
		t.Errorf("unknown host: %v", err)
	}
}

func TestLocalPutGet(t *testing.T) {
	l := remote.NewLocal(remote.LocalConfig{})
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	sum := writeRandom(t, src, 100000)
	dst := filepath.Join(dir, "sub", "dst")
	if err := l.Put(ctx, "h", remote.Transfer{Local: src, Remote: dst, Mode: 0o700, SHA256: sum}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dst)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("%v %v", st, err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(dst, old, old)
	if err := l.Put(ctx, "h", remote.Transfer{Local: src, Remote: dst, Mode: 0o700}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dst); !st.ModTime().Equal(old) {
		t.Error("unchanged file rewritten")
	}
	if err := l.Put(ctx, "h", remote.Transfer{Local: src, Remote: dst + "2", SHA256: strings.Repeat("a", 64)}); err == nil {
		t.Error("wrong sha256 accepted")
	}
	back := filepath.Join(dir, "back")
	if err := l.Get(ctx, "h", remote.Transfer{Local: back, Remote: dst}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(src)
	b, _ := os.ReadFile(back)
	if string(a) != string(b) {
		t.Error("get content differs")
	}
}

// TestLocalJob: detached jobs work the same through Local.
func TestLocalJob(t *testing.T) {
	l := remote.NewLocal(remote.LocalConfig{KillGrace: time.Second})
	ctx := context.Background()
	dir := t.TempDir()
	j, err := remote.StartJob(ctx, l, "local", dir, "sleeper", remote.Cmd{Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := j.Status(ctx, l); err != nil || st.State != remote.JobRunning {
		t.Fatalf("%+v %v", st, err)
	}
	if err := j.Stop(ctx, l, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	st, err := j.Wait(ctx, l, 50*time.Millisecond)
	if err != nil || st.State != remote.JobExited || st.ExitCode != 143 {
		t.Errorf("after stop: %+v %v", st, err)
	}
}
