package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"

	"github.com/benchrig/benchrig/internal/localfile"
	"github.com/benchrig/benchrig/remote"
)

// validateLocalFiles checks the files on this machine that the plan
// names, as benchrig will read them (internal/localfile): each must be a
// regular file of bounded size, never a FIFO or a device. An ssh.config
// must hold only what benchrig reads and nothing that would run a command
// (remote.CheckSSHConfigFile); a known_hosts file must already be one. A
// file that does not exist yet is left to the step that needs it (an
// absent known_hosts is an empty one), except a binary to upload.
// Nothing is executed and nothing read is shown.
func validateLocalFiles(ps *problems, p *Plan) {
	ssh := &p.SSH
	if ssh.Config != "" && ssh.Config != "none" {
		err := remote.CheckSSHConfigFile(ssh.Config)
		var ce *remote.ConfigError
		switch {
		case errors.As(err, &ce):
			for _, pr := range ce.Problems {
				ps.at(p.nodeOr(&ssh.Config), "ssh.config: %s", pr)
			}
		case err != nil && !errors.Is(err, os.ErrNotExist):
			ps.at(p.nodeOr(&ssh.Config), "ssh.config: %v", err)
		}
	}
	if ssh.IdentityFile != "" {
		if _, err := localfile.Read(ssh.IdentityFile, localfile.MaxIdentity); err != nil && !errors.Is(err, os.ErrNotExist) {
			ps.at(p.nodeOr(&ssh.IdentityFile), "ssh.identity_file: %v", err)
		}
	}
	if ssh.KnownHosts != "" {
		if err := remote.CheckKnownHostsFile(ssh.KnownHosts); err != nil && !errors.Is(err, os.ErrNotExist) {
			ps.at(p.nodeOr(&ssh.KnownHosts), "ssh.known_hosts: %v", err)
		}
	}
}

// checkLocalBinary checks a binary the plan uploads from this machine: a
// regular, executable file of at most localfile.MaxBinary bytes, with the
// plan's sha256 if it gives one. (Without one, the run pins the digest it
// reads and the dry-run shows it.)
func checkLocalBinary(ps *problems, p *Plan, b *Binary, where string) {
	f, st, err := localfile.Open(b.Path, localfile.MaxBinary)
	if err != nil {
		ps.at(p.nodeOr(&b.Path), "%s.path: %v", where, err)
		return
	}
	defer f.Close()
	if st.Mode()&0o111 == 0 {
		ps.at(p.nodeOr(&b.Path), "%s.path: %s is not executable (mode %04o): only a program is uploaded to the hosts", where, b.Path, st.Mode().Perm())
		return
	}
	if b.SHA256 == "" || !hexSHA.MatchString(b.SHA256) {
		return
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, localfile.MaxBinary)); err != nil {
		ps.at(p.nodeOr(&b.Path), "%s.path: %v", where, err)
		return
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != b.SHA256 {
		ps.at(p.nodeOr(&b.SHA256), "%s.sha256: %s has sha256 %s, not the plan's %s", where, b.Path, got, b.SHA256)
	}
}
