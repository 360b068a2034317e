package sshtest

import (
	"fmt"
	"os"
	"strings"
)

// WriteSSHConfig writes an ssh_config naming host i alias prefix+names[i]
// (HostName, Port, User, IdentityFile, UserKnownHostsFile), so that a
// plan can address the lab by name, as it would real machines through
// ~/.ssh/config.
func (l *Lab) WriteSSHConfig(path, prefix string, names []string) error {
	if len(names) != len(l.hosts) {
		return fmt.Errorf("sshtest: %d names for %d hosts", len(names), len(l.hosts))
	}
	var b strings.Builder
	b.WriteString("# written by sshtest\n")
	for i, h := range l.hosts {
		fmt.Fprintf(&b, "Host %s%s\n  HostName %s\n  Port %d\n  User %s\n  IdentityFile %s\n  UserKnownHostsFile %s\n  IdentitiesOnly yes\n\n",
			prefix, names[i], h.ip, h.dialPort(), l.user, l.identity, l.knownHosts)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
