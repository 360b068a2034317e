package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/remote"
)

// TestInstallScriptTarMember runs the real install script (real sh, curl
// on a file:// URL, real tar) with the payload as the member: even
// if validation let it through, tar reads it as a name after "--", so the
// command never runs.
func TestInstallScriptTarMember(t *testing.T) {
	for _, prog := range []string{"curl", "tar", "sha256sum"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	want := strings.Join(remote.TarExtractArgs(`"$tmp"`, `"$member"`), " ")
	if !strings.Contains(installScript, want) {
		t.Fatalf("the install script does not extract as remote.TarExtractArgs (%s)", want)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	archive := filepath.Join(dir, "c.tgz")
	out, err := exec.Command("sh", "-c", `mkdir -p "$1/d" && echo bin > "$1/d/cockroach" && tar -czf "$2" -C "$1" d`, "sh", dir, archive).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for _, member := range []string{
		"--checkpoint=1 --checkpoint-action=exec=touch " + marker,
		"--checkpoint=1",
		"--to-command=touch " + marker,
		"d/cockroach",
	} {
		dest := filepath.Join(dir, "dest")
		os.Remove(dest)
		os.Remove(dest + ".archive-sha256")
		h := Host{Name: "h"}
		steps := installBinary(h, Binary{URL: "file://" + archive, SHA256: hex.EncodeToString(sum[:]), Member: member}, dest, false)
		line := remote.ShellJoin(steps[0].Cmd)
		out, err := exec.Command("sh", "-c", line).CombinedOutput()
		if member == "d/cockroach" {
			if got, _ := os.ReadFile(dest); err != nil || string(got) != "bin\n" {
				t.Errorf("plain member: %v %s: installed %q", err, out, got)
			}
			continue
		}
		if err == nil {
			t.Errorf("member %q: the script succeeded: %s", member, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a tar member ran a command")
	}
}
