package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// endpoint is a Target resolved the way ssh(1) would resolve it: explicit
// fields first, then the user's ssh_config, then OpenSSH's defaults.
type endpoint struct {
	name          string // plan name (output prefix, executor key)
	host          string // address to dial (HostName)
	port          int
	user          string
	identityFiles []string // explicit (Target, Config) first
	optional      map[string]bool
	jumps         []*endpoint // ProxyJump chain, first hop first
}

// addr is host:port as dialed and as known_hosts is consulted.
func (e *endpoint) addr() string { return net.JoinHostPort(e.host, strconv.Itoa(e.port)) }

// key identifies a connection: two targets that resolve to the same
// user@host:port through the same jumps share a jump-host connection.
func (e *endpoint) key() string {
	var b strings.Builder
	for _, j := range e.jumps {
		b.WriteString(j.key() + ">")
	}
	b.WriteString(e.user + "@" + e.addr())
	return b.String()
}

// systemSSHConfig is OpenSSH's system-wide client config, read after the
// user's (first value wins) unless a file is named explicitly, as ssh -F
// does.
const systemSSHConfig = "/etc/ssh/ssh_config"

// sshConfig is the parsed ssh_config files (user's, then system's, or the
// one named), or nothing. See config_parse.go for what is read.
type sshConfig struct {
	paths   []string
	files   []*cfgReader // parallel to paths
	warning string
}

// loadSSHConfig reads path; "" means ~/.ssh/config then
// /etc/ssh/ssh_config, those that exist; "none" means no file. A named
// file is read strictly (CheckSSHConfigFile); a file that exists but
// cannot be read or is refused is an error naming file:line:col, since
// silently falling back to defaults would connect as the wrong user or
// port, or skip the bastion. Nothing is executed: benchrig never runs
// `ssh -G`, which would evaluate `Match exec` on this machine.
func loadSSHConfig(path string) (*sshConfig, error) {
	if path == "none" {
		return &sshConfig{}, nil
	}
	c := &sshConfig{}
	var candidates []string
	if path != "" {
		candidates = []string{path}
	} else {
		if home, err := os.UserHomeDir(); err == nil {
			candidates = append(candidates, filepath.Join(home, ".ssh", "config"))
		}
		candidates = append(candidates, systemSSHConfig)
	}
	var warnings []string
	for _, p := range candidates {
		r, err := readSSHConfig(p, path != "" && !isDefaultSSHConfig(p))
		if errors.Is(err, os.ErrNotExist) && path == "" {
			continue
		}
		if err != nil {
			return nil, err
		}
		c.paths = append(c.paths, p)
		c.files = append(c.files, r)
		warnings = append(warnings, r.warnings...)
	}
	c.warning = strings.Join(warnings, "; ")
	return c, nil
}

// lookup is every value of key for alias, in file order (the first
// wins, except for IdentityFile, which accumulates as in ssh). A refused
// directive of a default file that applies to alias is an error: ssh
// would honour it and benchrig will not.
func (c *sshConfig) lookup(alias, key string) ([]string, error) {
	var all []string
	for _, f := range c.files {
		for i := range f.blocks {
			b := &f.blocks[i]
			if !b.matches(alias) {
				continue
			}
			for _, e := range b.entries {
				if why := refusedKeys[e.key]; why != "" {
					return nil, fmt.Errorf("ssh config %s: %s applies to %s and %s; benchrig runs no command from ssh_config (use ProxyJump, or --ssh-config none)", e.at(), e.name, alias, why)
				}
				if e.key == strings.ToLower(key) {
					all = append(all, e.args...)
				}
			}
		}
	}
	return all, nil
}

// get is key's value for alias: the first one set wins.
func (c *sshConfig) get(alias, key string) (string, error) {
	v, err := c.lookup(alias, key)
	if err != nil || len(v) == 0 {
		return "", err
	}
	return v[0], nil
}

// getAll is every value of key for alias, across files (IdentityFile
// accumulates, as in ssh).
func (c *sshConfig) getAll(alias, key string) ([]string, error) {
	return c.lookup(alias, key)
}

// resolve turns a Target into an endpoint. extraKeys are offered to every
// host after the target's own.
func (c *sshConfig) resolve(t Target, extraKeys []string) (*endpoint, error) {
	alias := t.Host
	if alias == "" {
		alias = t.Name
	}
	if alias == "" {
		return nil, errors.New("target has neither Name nor Host")
	}
	e, err := c.resolveHost(alias, t.User, t.Port)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", t.Name, err)
	}
	e.name = t.Name
	if e.name == "" {
		e.name = alias
	}
	// Keys named explicitly must load; ssh_config's and the defaults are
	// tried if present, as ssh(1) does.
	explicit := append(append([]string(nil), t.IdentityFiles...), extraKeys...)
	cfgKeys := e.identityFiles
	e.identityFiles = nil
	for _, k := range explicit {
		e.identityFiles = append(e.identityFiles, expandPath(k, e))
	}
	for _, k := range cfgKeys {
		e.identityFiles = append(e.identityFiles, k)
		e.optional[k] = true
	}
	if len(t.IdentityFiles) == 0 && len(cfgKeys) == 0 {
		if home, err := os.UserHomeDir(); err == nil {
			for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
				p := filepath.Join(home, ".ssh", n)
				e.identityFiles = append(e.identityFiles, p)
				e.optional[p] = true
			}
		}
	}

	jump := t.ProxyJump
	if jump == "" {
		if jump, err = c.get(alias, "ProxyJump"); err != nil {
			return nil, fmt.Errorf("host %s: %w", t.Name, err)
		}
	}
	if jump != "" && jump != "none" {
		for _, spec := range strings.Split(jump, ",") {
			user, hostport, port, err := parseJump(strings.TrimSpace(spec))
			if err != nil {
				return nil, fmt.Errorf("host %s: ProxyJump %q: %w", t.Name, jump, err)
			}
			hop, err := c.resolveHost(hostport, user, port)
			if err != nil {
				return nil, fmt.Errorf("host %s: jump host %s: %w", t.Name, spec, err)
			}
			hop.name = spec
			// The target's keys are offered to its jump hosts too (a
			// bastion usually takes the same key), before the hop's own
			// ssh_config keys; the defaults only if there is nothing else.
			own := hop.identityFiles
			hop.identityFiles = nil
			for _, k := range explicit {
				hop.identityFiles = append(hop.identityFiles, expandPath(k, hop))
			}
			for _, k := range own {
				hop.identityFiles = append(hop.identityFiles, k)
				hop.optional[k] = true
			}
			if len(hop.identityFiles) == 0 {
				if home, err := os.UserHomeDir(); err == nil {
					for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
						p := filepath.Join(home, ".ssh", n)
						hop.identityFiles = append(hop.identityFiles, p)
						hop.optional[p] = true
					}
				}
			}
			hop.jumps = append([]*endpoint(nil), e.jumps...)
			e.jumps = append(e.jumps, hop)
		}
	}
	return e, nil
}

// resolveHost looks alias up in ssh_config for HostName, Port, User and
// IdentityFile; user and port override the file when set.
func (c *sshConfig) resolveHost(alias, login string, port int) (*endpoint, error) {
	e := &endpoint{host: alias, port: port, user: login, optional: map[string]bool{}}
	hn, err := c.get(alias, "HostName")
	if err != nil {
		return nil, err
	}
	if hn != "" {
		e.host = strings.ReplaceAll(hn, "%h", alias)
	}
	if e.port == 0 {
		p, err := c.get(alias, "Port")
		if err != nil {
			return nil, err
		}
		if p != "" {
			if e.port, err = strconv.Atoi(p); err != nil || e.port <= 0 || e.port > 65535 {
				return nil, fmt.Errorf("ssh config %s: bad Port %q for %s", strings.Join(c.paths, ", "), p, alias)
			}
		}
	}
	if e.port == 0 {
		e.port = 22
	}
	if e.user == "" {
		if e.user, err = c.get(alias, "User"); err != nil {
			return nil, err
		}
	}
	if e.user == "" {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("no User for %s and no local user name: %w", alias, err)
		}
		e.user = u.Username
	}
	ids, err := c.getAll(alias, "IdentityFile")
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		e.identityFiles = append(e.identityFiles, expandPath(id, e))
	}
	return e, nil
}

// parseJump splits "[user@]host[:port]" (ProxyJump syntax; IPv6 in
// brackets).
func parseJump(s string) (user, host string, port int, err error) {
	if s == "" {
		return "", "", 0, errors.New("empty hop")
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		user, s = s[:i], s[i+1:]
	}
	host = s
	if h, p, splitErr := net.SplitHostPort(s); splitErr == nil {
		host = h
		if port, err = strconv.Atoi(p); err != nil || port <= 0 || port > 65535 {
			return "", "", 0, fmt.Errorf("bad port %q", p)
		}
	}
	if host == "" {
		return "", "", 0, errors.New("empty host")
	}
	return user, host, port, nil
}

// expandPath expands ~ and the ssh_config tokens %d (home), %u (local
// user), %r (remote user), %h (host) and %% in an IdentityFile.
func expandPath(p string, e *endpoint) string {
	home, _ := os.UserHomeDir()
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(home, p[2:])
	}
	if !strings.Contains(p, "%") {
		return p
	}
	local := ""
	if u, err := user.Current(); err == nil {
		local = u.Username
	}
	r := strings.NewReplacer("%%", "%", "%d", home, "%u", local, "%r", e.user, "%h", e.host)
	return r.Replace(p)
}
