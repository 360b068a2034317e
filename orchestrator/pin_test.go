package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestPinUploads: each upload step gets its local file's sha256 (shown by
// the dry-run, checked again by the upload), read as a bounded regular
// executable file; a digest the plan gave is kept.
func TestPinUploads(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	content := []byte("#!/bin/sh\ntrue\n")
	if err := os.WriteFile(bin, content, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	want := hex.EncodeToString(sum[:])
	noexec := filepath.Join(dir, "secret")
	if err := os.WriteFile(noexec, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o700); err != nil {
		t.Fatal(err)
	}
	put := func(local, sha string) stages.Step {
		return stages.Step{Host: "n1", Kind: stages.Put, What: "upload x", Transfer: remote.Transfer{Local: local, Remote: "x", SHA256: sha}}
	}
	list := []stages.Stage{{Name: "install", Steps: []stages.Step{put(bin, ""), put(bin, "given"), {Host: "n1", Kind: stages.Exec}}}}
	if err := PinUploads(list); err != nil {
		t.Fatal(err)
	}
	if got := list[0].Steps[0].Transfer; got.SHA256 != want || !strings.Contains(got.String(), "sha256:"+want) {
		t.Errorf("pinned %q (%s), want %s", got.SHA256, got, want)
	}
	if got := list[0].Steps[1].Transfer.SHA256; got != "given" {
		t.Errorf("a given digest was replaced by %q", got)
	}
	for local, msg := range map[string]string{noexec: "not executable (mode 0600)", fifo: "not a regular file (a named pipe)", "/dev/zero": "not a regular file (a character device)"} {
		err := PinUploads([]stages.Stage{{Name: "install", Steps: []stages.Step{put(local, "")}}})
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "host n1") {
			t.Errorf("%s: err = %v, want %q", local, err, msg)
		}
	}
}

// TestDryRunShowsUploadDigest: the dry-run of the shipped local plan lists
// every upload with the sha256 of the local file it would send.
func TestDryRunShowsUploadDigest(t *testing.T) {
	dir := t.TempDir()
	driver := filepath.Join(dir, "benchrig")
	content := []byte("#!/bin/sh\nexit 0\n")
	if err := os.WriteFile(driver, content, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	var out, errOut strings.Builder
	err := Run(context.Background(), "../plans/local.yaml", Options{Out: &out, ErrOut: &errOut, DryRun: true, DriverPath: driver})
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	uploads := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.Contains(line, driver+" -> ") {
			continue
		}
		uploads++
		if !strings.Contains(line, "sha256:"+hex.EncodeToString(sum[:])) {
			t.Errorf("upload without the local file's digest: %s", line)
		}
	}
	if uploads == 0 {
		t.Fatalf("no upload of %s in the dry-run:\n%s", driver, out.String())
	}
}
