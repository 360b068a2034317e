package remote

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseTarget reads "name=user@host:port"; name, user and port are
// optional ("user@host", "host:2222", "db1=10.0.0.5").
func ParseTarget(spec string) (Target, error) {
	var t Target
	rest := spec
	if name, r, ok := strings.Cut(spec, "="); ok {
		t.Name, rest = name, r
	}
	if u, r, ok := strings.Cut(rest, "@"); ok {
		t.User, rest = u, r
	}
	t.Host = rest
	if i := strings.LastIndex(rest, ":"); i >= 0 && !strings.HasSuffix(rest, "]") {
		port, err := strconv.Atoi(rest[i+1:])
		if err != nil || port <= 0 || port > 65535 {
			return t, fmt.Errorf("target %q: bad port", spec)
		}
		t.Host, t.Port = strings.Trim(rest[:i], "[]"), port
	}
	if t.Host == "" {
		return t, fmt.Errorf("target %q: no host", spec)
	}
	if t.Name == "" {
		t.Name = t.Host
	}
	return t, nil
}

// SelectTargets keeps the targets a comma-separated list of names
// selects; "all" keeps all. A name no target has is an error.
func SelectTargets(ts []Target, sel string) ([]Target, error) {
	if sel == "all" {
		return ts, nil
	}
	var out []Target
	for _, name := range strings.Split(sel, ",") {
		found := false
		for _, t := range ts {
			if t.Name == name {
				out = append(out, t)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no host named %q", name)
		}
	}
	return out, nil
}
