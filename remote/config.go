package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	sshconfig "github.com/kevinburke/ssh_config"
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

// sshConfig is the parsed ssh_config files (user's, then system's), or
// nothing.
type sshConfig struct {
	paths []string
	cfgs  []*sshconfig.Config // parallel to paths; empty under viaSSHG
	// viaSSHG is set when the parser could not read a file (Match final,
	// Match exec, which kevinburke/ssh_config rejects) but OpenSSH is
	// installed: each host is then resolved by `ssh -G`, OpenSSH's own
	// fully evaluated configuration.
	viaSSHG bool
	gArgs   []string // "-F", file when one was named
	warning string
	mu      sync.Mutex
	gCache  map[string]map[string][]string
}

// loadSSHConfig reads path; "" means ~/.ssh/config then
// /etc/ssh/ssh_config, those that exist; "none" means no file. A file
// that exists but cannot be read is an error naming it, and so is one
// that cannot be parsed unless OpenSSH can resolve it (ssh -G): silently
// falling back to defaults would connect as the wrong user or port, or
// skip the bastion.
func loadSSHConfig(path string) (*sshConfig, error) {
	if path == "none" {
		return &sshConfig{}, nil
	}
	c := &sshConfig{gCache: map[string]map[string][]string{}}
	var candidates []string
	if path != "" {
		candidates = []string{path}
		c.gArgs = []string{"-F", path}
	} else {
		if home, err := os.UserHomeDir(); err == nil {
			candidates = append(candidates, filepath.Join(home, ".ssh", "config"))
		}
		candidates = append(candidates, systemSSHConfig)
	}
	var parseErrs []string
	for _, p := range candidates {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) && path == "" {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ssh config %s: %w", p, err)
		}
		cfg, err := sshconfig.Decode(f)
		f.Close()
		if err != nil {
			parseErrs = append(parseErrs, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		c.paths = append(c.paths, p)
		c.cfgs = append(c.cfgs, cfg)
	}
	if len(parseErrs) == 0 {
		return c, nil
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		return nil, fmt.Errorf("ssh config %s cannot be parsed and OpenSSH's ssh is not installed to resolve it; fix it, or pass --ssh-config none (or another file)", strings.Join(parseErrs, "; "))
	}
	c.viaSSHG, c.paths, c.cfgs = true, candidates, nil
	c.warning = fmt.Sprintf("ssh config %s; resolving hosts with `ssh -G` instead", strings.Join(parseErrs, "; "))
	return c, nil
}

// sshG returns `ssh -G [-F path] alias` as key → values (keys lower case).
func (c *sshConfig) sshG(alias string) (map[string][]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.gCache[alias]; ok {
		return m, nil
	}
	if strings.HasPrefix(alias, "-") {
		return nil, fmt.Errorf("host alias %q starts with '-'", alias)
	}
	args := append(append([]string{"-G"}, c.gArgs...), alias)
	var stderr strings.Builder
	cmd := exec.Command("ssh", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	m := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok {
			m[strings.ToLower(k)] = append(m[strings.ToLower(k)], v)
		}
	}
	c.gCache[alias] = m
	return m, nil
}

// get is key's value for alias: the first file that sets it wins.
func (c *sshConfig) get(alias, key string) (string, error) {
	if c.viaSSHG {
		m, err := c.sshG(alias)
		if err != nil || len(m[strings.ToLower(key)]) == 0 {
			return "", err
		}
		return m[strings.ToLower(key)][0], nil
	}
	for i, cfg := range c.cfgs {
		v, err := cfg.Get(alias, key)
		if err != nil {
			return "", fmt.Errorf("ssh config %s: %s for %s: %w", c.paths[i], key, alias, err)
		}
		if v != "" {
			return v, nil
		}
	}
	return "", nil
}

// getAll is every value of key for alias, across files (IdentityFile
// accumulates, as in ssh).
func (c *sshConfig) getAll(alias, key string) ([]string, error) {
	if c.viaSSHG {
		m, err := c.sshG(alias)
		return m[strings.ToLower(key)], err
	}
	var all []string
	for i, cfg := range c.cfgs {
		v, err := cfg.GetAll(alias, key)
		if err != nil {
			return nil, fmt.Errorf("ssh config %s: %s for %s: %w", c.paths[i], key, alias, err)
		}
		all = append(all, v...)
	}
	return all, nil
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
