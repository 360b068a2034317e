package plan

import (
	"fmt"
	"strings"

	"github.com/benchrig/benchrig/remote"
)

// Targets returns how to reach the hosts a selector names: "nodes",
// "workload", "all", or host names (comma-separated or one per call).
// Hosts come in plan order.
func (p *Plan) Targets(selector string) ([]remote.Target, error) {
	var hosts []Host
	switch selector {
	case "nodes":
		hosts = p.Nodes
	case "workload":
		hosts = p.Workload
	case "all", "":
		hosts = append(append(hosts, p.Nodes...), p.Workload...)
	default:
		for _, name := range strings.Split(selector, ",") {
			h, ok := p.Host(name)
			if !ok {
				return nil, fmt.Errorf("plan %s has no host %q (hosts: %s; or nodes, workload, all)", p.Name, name, p.hostNames())
			}
			hosts = append(hosts, h)
		}
	}
	out := make([]remote.Target, len(hosts))
	for i, h := range hosts {
		out[i] = h.Target(p)
	}
	return out, nil
}

// Target is how to reach h: the plan's ssh settings, the host's own.
func (h Host) Target(p *Plan) remote.Target {
	t := remote.Target{Name: h.Name, Host: h.SSH, User: h.User, ProxyJump: p.SSH.JumpHost}
	if h.Port != 22 || p.node(&p.SSH.Port) != nil || (h.spec != nil && h.spec.Port != "") {
		t.Port = h.Port
	}
	if p.SSH.IdentityFile != "" {
		t.IdentityFiles = []string{p.SSH.IdentityFile}
	}
	return t
}

// Host finds a host by name.
func (p *Plan) Host(name string) (Host, bool) {
	for _, h := range p.Nodes {
		if h.Name == name {
			return h, true
		}
	}
	for _, h := range p.Workload {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

func (p *Plan) hostNames() string {
	var names []string
	for _, h := range append(append([]Host(nil), p.Nodes...), p.Workload...) {
		names = append(names, h.Name)
	}
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return strings.Join(names, ", ")
}

// RemoteConfig is the SSH executor configuration the plan's ssh: section
// asks for.
func (p *Plan) RemoteConfig() remote.SSHConfig {
	var cfg remote.SSHConfig
	if p.SSH.KnownHosts != "" {
		cfg.KnownHostsFiles = []string{p.SSH.KnownHosts}
	}
	cfg.SSHConfigFile = p.SSH.Config
	if p.SSH.IdentityFile != "" {
		cfg.IdentityFiles = []string{p.SSH.IdentityFile}
	}
	cfg.KeepaliveInterval = p.SSH.Keepalive.Std()
	return cfg
}
