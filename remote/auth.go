package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/benchrig/benchrig/internal/localfile"
)

// auth holds what the executor authenticates with: one ssh-agent
// connection shared by every host (an agent dial per connection exhausts
// the agent at a few hundred hosts: cockroach#35294) and identity files
// loaded once each.
type auth struct {
	agent     agent.ExtendedAgent // nil: no agent
	agentConn net.Conn

	mu       sync.Mutex
	keys     map[string]ssh.Signer
	warnings []string
}

func newAuth(useAgent bool) (*auth, error) {
	a := &auth{keys: map[string]ssh.Signer{}}
	sock := os.Getenv("SSH_AUTH_SOCK")
	if !useAgent || sock == "" {
		return a, nil
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		// An agent that is advertised but dead is worth saying, not fatal:
		// identity files may still do.
		a.warnings = append(a.warnings, fmt.Sprintf("ssh-agent at %s: %v (continuing with identity files)", sock, err))
		return a, nil
	}
	a.agentConn = c
	a.agent = agent.NewClient(c)
	return a, nil
}

// load reads the identity files of e. A file named explicitly (a
// Target's IdentityFiles or Config.IdentityFiles) must load; an optional
// one (ssh_config's, the ~/.ssh/id_* defaults) is skipped when missing and
// reported as a warning when it exists but cannot be used (for example a
// passphrase-protected key whose passphrase only the agent knows).
func (a *auth) load(e *endpoint) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range e.identityFiles {
		if _, ok := a.keys[p]; ok {
			continue
		}
		b, err := localfile.Read(p, localfile.MaxIdentity)
		if err != nil {
			if e.optional[p] {
				if !errors.Is(err, os.ErrNotExist) {
					a.warnings = append(a.warnings, fmt.Sprintf("identity file %s: %v", p, err))
				}
				a.keys[p] = nil
				continue
			}
			return fmt.Errorf("host %s: identity file: %w", e.name, err)
		}
		s, err := ssh.ParsePrivateKey(b)
		if err != nil {
			var pp *ssh.PassphraseMissingError
			if errors.As(err, &pp) {
				err = fmt.Errorf("passphrase-protected; add it to ssh-agent (ssh-add %s)", p)
			}
			if e.optional[p] {
				a.warnings = append(a.warnings, fmt.Sprintf("identity file %s: %v", p, err))
				a.keys[p] = nil
				continue
			}
			return fmt.Errorf("host %s: identity file %s: %w", e.name, p, err)
		}
		a.keys[p] = s
	}
	return nil
}

// method is the public-key auth for e: the agent's keys, then e's files.
func (a *auth) method(e *endpoint) ssh.AuthMethod {
	return ssh.PublicKeysCallback(func() ([]ssh.Signer, error) {
		var out []ssh.Signer
		if a.agent != nil {
			s, err := a.agent.Signers()
			if err != nil {
				return nil, fmt.Errorf("ssh-agent: %w", err)
			}
			out = append(out, s...)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, p := range e.identityFiles {
			if s := a.keys[p]; s != nil {
				out = append(out, s)
			}
		}
		return out, nil
	})
}

// usable reports whether e has any key at all to offer.
func (a *auth) usable(e *endpoint) bool {
	if a.agent != nil {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range e.identityFiles {
		if a.keys[p] != nil {
			return true
		}
	}
	return false
}

func (a *auth) close() error {
	if a.agentConn != nil {
		return a.agentConn.Close()
	}
	return nil
}
