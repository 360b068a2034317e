package plan

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
)

// expandPattern expands one range pattern: "node[01-03]" gives node01,
// node02, node03 (the width of the lower bound is kept, as in pdsh and
// Slurm host lists); "10.0.1.[11-13]" gives three addresses; "a[1,3,5-6]"
// lists. Several bracket groups multiply, left to right. A string without
// brackets expands to itself.
func expandPattern(s string) ([]string, error) { return expandPatternMax(s, maxHosts) }

// expandPatternMax is expandPattern refusing patterns that stand for more
// than limit strings (bracket groups multiply: a[0-99999]b[0-99999] is
// ten billion hosts), before building any of them.
func expandPatternMax(s string, limit int) ([]string, error) {
	n, err := patternCount(s, limit)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("pattern %q: expands to more than %d values", s, limit)
	}
	return expandOne(s)
}

// patternCount is how many strings s expands to, stopping past limit.
func patternCount(s string, limit int) (int, error) {
	total := 1
	for {
		open := strings.IndexByte(s, '[')
		if open < 0 {
			return total, nil
		}
		end := strings.IndexByte(s[open:], ']')
		if end < 0 {
			return 0, fmt.Errorf("pattern %q: '[' without ']'", s)
		}
		group := 0
		for _, part := range strings.Split(s[open+1:open+end], ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := strconv.Atoi(lo)
			if err != nil || a < 0 {
				return 0, fmt.Errorf("pattern %q: %q is not a number", s, lo)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil || b < 0 {
					return 0, fmt.Errorf("pattern %q: %q is not a number", s, hi)
				}
			}
			if b < a {
				return 0, fmt.Errorf("pattern %q: range %s runs backwards", s, part)
			}
			if b-a >= limit || group+(b-a+1) > limit {
				return limit + 1, nil
			}
			group += b - a + 1
		}
		if total > limit/group {
			return limit + 1, nil
		}
		total *= group
		s = s[open+end+1:]
	}
}

// expandOne expands a pattern already counted.
func expandOne(s string) ([]string, error) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		if strings.IndexByte(s, ']') >= 0 {
			return nil, fmt.Errorf("pattern %q: ']' without '['", s)
		}
		return []string{s}, nil
	}
	end := strings.IndexByte(s[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("pattern %q: '[' without ']'", s)
	}
	end += open
	prefix, body, rest := s[:open], s[open+1:end], s[end+1:]
	var items []string
	for _, part := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %q is not a number", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("pattern %q: %q is not a number", s, hi)
			}
		}
		if b < a {
			return nil, fmt.Errorf("pattern %q: range %s runs backwards", s, part)
		}
		if b-a > 100000 {
			return nil, fmt.Errorf("pattern %q: range %s is too large", s, part)
		}
		// Counted, not "i <= b": b may be math.MaxInt, where i++ wraps.
		for k := 0; k <= b-a; k++ {
			items = append(items, fmt.Sprintf("%0*d", len(lo), a+k))
		}
	}
	tails, err := expandOne(rest)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items)*len(tails))
	for _, it := range items {
		for _, t := range tails {
			out = append(out, prefix+it+t)
		}
	}
	return out, nil
}

// maxHostBytes bounds the text host patterns expand to, over all specs:
// 10,000 hosts with names, addresses and directories of a hundred bytes
// each are a few megabytes; a 3 kB plan of aliased specs with long
// patterned directories would otherwise expand to gigabytes before any
// count is compared with maxHosts.
const maxHostBytes = 8 << 20

// Longest host fields: a DNS name is at most 253 bytes (RFC 1035), a
// port or rack a few digits.
const (
	maxHostNameLen = 253
	maxNumberLen   = 32
)

// hostBudget is what the host specs of a plan may still expand to; the
// work is counted before it is done, so a plan over the budget is refused
// without being expanded.
type hostBudget struct {
	hosts, bytes int
	spent        bool // reported once
}

// expandHosts turns host specs into hosts, applying defaults. Database
// nodes are expanded first; the workload hosts get what they left of the
// budget.
func expandHosts(ps *problems, p *Plan, specs []HostSpec, where string, isNode bool) []Host {
	budget := &hostBudget{hosts: maxHosts, bytes: maxHostBytes}
	if !isNode {
		budget.hosts -= len(p.Nodes)
		for _, h := range p.Nodes {
			budget.bytes -= len(h.Name) + len(h.SSH) + len(h.Addr) + len(h.User) + len(h.Store) + len(h.Dir)
		}
	}
	var hosts []Host
	for si := range specs {
		s := &specs[si]
		at := fmt.Sprintf("%s[%d]", where, si)
		if s.Name == "" {
			ps.at(p.nodeOr(s), "%s.name: missing", at)
			continue
		}
		fields := []struct {
			name string
			val  *string
		}{
			{"name", &s.Name}, {"ssh", &s.SSH}, {"addr", &s.Addr}, {"port", &s.Port}, {"user", &s.User},
			{"rack", &s.Rack}, {"sql_port", &s.SQLPort}, {"http_port", &s.HTTPPort},
			{"store", &s.Store}, {"dir", &s.Dir}, {"store_mount", &s.StoreMount},
		}
		ok := true
		for _, f := range fields {
			// These end up in quoted conf-file values and URLs as well as
			// in argv; a quote or control character has no business there.
			if strings.ContainsAny(*f.val, "'\"\n\r\x00") {
				ps.at(p.node(f.val), "%s.%s: %q holds a quote or control character", at, f.name, *f.val)
			}
			if limit := hostFieldLimit(f.name); len(*f.val) > limit {
				ps.at(p.node(f.val), "%s.%s: %d bytes; at most %d", at, f.name, len(*f.val), limit)
				ok = false
			}
			// Numbers are decimal: YAML 1.1 reads port: 022 as 18; a
			// pattern's zero padding (port: "22[01-09]") is its own.
			if isNumberField(f.name) && *f.val != "" && !strings.Contains(*f.val, "[") && !decimalInt.MatchString(*f.val) {
				ps.at(p.node(f.val), "%s.%s: %q is not a plain decimal number; write it in decimal digits", at, f.name, *f.val)
				ok = false
			}
		}
		if !ok {
			continue
		}
		// Count before expanding: what the spec stands for must fit in
		// what the plan's earlier specs left.
		count, cost, single := 1, 0, true
		for _, f := range fields {
			n, err := patternCount(*f.val, maxHosts)
			if err != nil || n <= 1 {
				continue // a single value is shared by every host; errors come below
			}
			single = single && n <= maxHosts // else expandPatternMax below says which field
			count = max(count, n)
			cost += n * (len(*f.val) + 20)
		}
		if single && (count > budget.hosts || cost > budget.bytes) {
			if !budget.spent {
				budget.spent = true
				ps.at(p.nodeOr(s), "%s: nodes and workload expand to more than %d hosts or %d MiB of names and paths; at most that", at, maxHosts, maxHostBytes>>20)
			}
			continue
		}
		budget.hosts -= count
		budget.bytes -= cost
		vals := make([][]string, len(fields))
		count = 1
		for i, f := range fields {
			if *f.val == "" {
				continue
			}
			v, err := expandPatternMax(*f.val, maxHosts)
			if err != nil {
				ps.at(p.node(f.val), "%s.%s: %v", at, f.name, err)
				ok = false
				continue
			}
			vals[i] = v
			if len(v) > 1 {
				if count > 1 && len(v) != count {
					ps.at(p.node(f.val), "%s.%s: expands to %d values but name expands to %d", at, f.name, len(v), count)
					ok = false
				}
				count = max(count, len(v))
			}
		}
		if len(vals[0]) != count && len(vals[0]) == 1 && count > 1 {
			ps.at(p.node(&s.Name), "%s.name: %q names one host but other fields expand to %d; give the name a range such as %s[1-%d]", at, s.Name, count, s.Name, count)
			ok = false
		}
		if !ok {
			continue
		}
		get := func(i, k int) string {
			switch len(vals[i]) {
			case 0:
				return ""
			case 1:
				return vals[i][0]
			}
			return vals[i][k]
		}
		if s.Racks < 0 || (s.Racks > 0 && s.Rack != "") {
			ps.at(p.node(&s.Racks), "%s.racks: give either rack or a positive racks, not both", at)
		}
		racks := s.Racks
		if racks > count {
			ps.at(p.node(&s.Racks), "%s.racks: %d racks for %d hosts leaves racks empty", at, s.Racks, count)
			racks = 0 // leave the hosts without a rack; the problem is reported
		}
		if len(s.Partitions) > 0 && (isNode || count != 1) {
			ps.at(p.node(&s.Partitions), "%s.partitions: only a single workload host can pin partitions", at)
		}
		badWord := map[*string]bool{}
		for k := 0; k < count; k++ {
			h := Host{
				Name:       get(0, k),
				SSH:        get(1, k),
				Addr:       get(2, k),
				User:       get(4, k),
				Store:      get(8, k),
				Dir:        get(9, k),
				Rack:       -1,
				StoreMount: get(10, k),
				spec:       s,
			}
			if h.SSH == "" {
				h.SSH = h.Name
			}
			for _, f := range []struct {
				field     *string
				val, what string
			}{
				{&s.Name, h.Name, "name"}, {&s.SSH, h.SSH, "ssh"}, {&s.Addr, h.Addr, "addr"},
			} {
				if f.val != "" && !isHostWord(f.val) && !badWord[f.field] {
					badWord[f.field] = true // once per field, not per host
					ps.at(p.node(f.field), "%s.%s: %q is not a host name or address", at, f.what, f.val)
				}
			}
			for _, f := range []struct {
				field     *string
				val, what string
			}{
				{&s.Store, h.Store, "store"}, {&s.Dir, h.Dir, "dir"}, {&s.StoreMount, h.StoreMount, "store_mount"},
			} {
				if f.val != "" && !badWord[f.field] {
					before := len(ps.list)
					checkPath(ps, p.node(f.field), at+"."+f.what, f.val)
					badWord[f.field] = len(ps.list) > before
				}
			}
			if h.User != "" && !loginName.MatchString(h.User) && !badWord[&s.User] {
				badWord[&s.User] = true
				ps.at(p.node(&s.User), "%s.user: %q is not a user name", at, h.User)
			}
			if h.Addr == "" {
				h.Addr = h.SSH
			}
			if h.User == "" {
				h.User = p.SSH.User
			}
			if h.Dir == "" {
				h.Dir = "benchrig"
			}
			h.Port = p.SSH.Port
			h.Port = portField(ps, p, &s.Port, get(3, k), at+".port", h.Port)
			if r := get(5, k); r != "" {
				n, err := strconv.Atoi(r)
				if err != nil || n < 0 || n >= maxHosts {
					ps.at(p.node(&s.Rack), "%s.rack: %q is not a rack number (0..%d)", at, r, maxHosts-1)
					n = -1
				}
				h.Rack = n
			}
			if racks > 0 {
				// roachprod's --racks convention: host k of the spec in
				// rack k % racks. workload up to v24.x has URL j of the
				// addrs file serve partition j % P, so the nodes listed in
				// order must cycle through the racks.
				h.Rack = k % racks
			}
			if isNode {
				defSQL, defHTTP := 26257, 8080
				if p.Flavor == Postgres {
					defSQL, defHTTP = 5432, 0
				}
				h.ListenSet = s.SQLPort != "" || s.HTTPPort != ""
				h.SQLPort = portField(ps, p, &s.SQLPort, get(6, k), at+".sql_port", defSQL)
				h.HTTPPort = portField(ps, p, &s.HTTPPort, get(7, k), at+".http_port", defHTTP)
				if h.Store == "" && p.Flavor == Postgres {
					h.Store = h.Dir + "/pgdata"
				}
				if h.StoreMount != "" && !badWord[&s.StoreMount] && (!path.IsAbs(h.StoreMount) || h.Store == "" || !within(h.Store, h.StoreMount)) {
					badWord[&s.StoreMount] = true
					ps.at(p.node(&s.StoreMount), "%s.store_mount: %q must be an absolute path that holds the store (%q)", at, h.StoreMount, h.Store)
				}
			} else {
				h.Partitions = slices.Clone(s.Partitions)
				h.Pinned = len(s.Partitions) > 0
				if s.SQLPort != "" || s.HTTPPort != "" || s.Store != "" || s.StoreMount != "" || s.Rack != "" || s.Racks != 0 {
					ps.at(p.nodeOr(s), "%s: sql_port, http_port, store, store_mount and rack are for database nodes", at)
				}
			}
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// hostFieldLimit is the longest value a host spec field may have.
func hostFieldLimit(field string) int {
	switch field {
	case "name", "ssh", "addr":
		return maxHostNameLen + 64 // room for a range pattern
	case "store", "dir", "store_mount":
		return maxPathLen
	case "user":
		return 256
	}
	return maxNumberLen
}

// isNumberField: the host spec fields that hold numbers (or patterns of them).
func isNumberField(field string) bool {
	switch field {
	case "port", "rack", "sql_port", "http_port":
		return true
	}
	return false
}

// isHostWord says whether s may name a host: a DNS name (a trailing dot,
// a fully qualified name, allowed), an IPv4 address, or a bracket-free
// IPv6 address (::1).
func isHostWord(s string) bool {
	if strings.Contains(s, ":") {
		ip := net.ParseIP(s)
		return ip != nil && !strings.Contains(s, "%")
	}
	if len(s) > maxHostNameLen {
		return false
	}
	if t, ok := strings.CutSuffix(s, "."); ok && t != "" {
		s = t
	}
	return matchHostWord(s)
}

// matchHostWord says whether s is a host word: a DNS name, an IPv4
// address or a bracket-free IPv6 address, what may stand in a URL, a
// --join list and a conf file; as a pattern,
// ^[A-Za-z0-9]([A-Za-z0-9._:-]*[A-Za-z0-9])?$ (hosts_test.go holds it and
// checks the two agree). It is written out without the regexp engine: it runs for
// every expanded host (10,000 at most), where a regexp's per-call machine
// made validation allocate hundreds of MiB under the race detector, which
// empties the machines' pool.
func matchHostWord(s string) bool {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '_' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

func portField(ps *problems, p *Plan, field *string, v, where string, def int) int {
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 65535 {
		ps.at(p.node(field), "%s: %q is not a port", where, v)
		return def
	}
	return n
}

func checkUnique(ps *problems, p *Plan) {
	names := map[string]bool{}
	listen := map[string]string{}
	for _, h := range append(append([]Host(nil), p.Nodes...), p.Workload...) {
		if names[h.Name] {
			ps.at(p.nodeOr(&h.spec.Name), "host %s: the name is used twice", h.Name)
		}
		names[h.Name] = true
	}
	for _, h := range p.Nodes {
		key := fmt.Sprintf("%s:%d", h.Addr, h.SQLPort)
		if other, dup := listen[key]; dup {
			ps.at(p.nodeOr(&h.spec.Name), "host %s: address %s is also node %s's (give distinct addr or sql_port)", h.Name, key, other)
		}
		listen[key] = h.Name
		if dir := h.SSH + ":" + h.Dir; p.Flavor == Postgres {
			if other, dup := listen[dir]; dup {
				ps.at(p.nodeOr(&h.spec.Dir), "host %s: work directory %s is also node %s's", h.Name, h.Dir, other)
			}
			listen[dir] = h.Name
		}
	}
}

// checkRacks: either no node has a rack, or all have, and racks 0..R-1
// each hold at least one node.
func checkRacks(ps *problems, p *Plan) bool {
	before := len(ps.list)
	withRack := 0
	count := map[int]int{}
	maxRack := -1
	for _, h := range p.Nodes {
		if h.Rack >= 0 {
			withRack++
			count[h.Rack]++
			maxRack = max(maxRack, h.Rack)
		}
	}
	if withRack == 0 {
		return true
	}
	if withRack != len(p.Nodes) {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: %d of %d nodes have a rack; give every node one or none", withRack, len(p.Nodes))
	}
	if maxRack >= len(p.Nodes) {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: rack %d, but there are only %d nodes (racks are numbered 0..nodes-1)", maxRack, len(p.Nodes))
		return false
	}
	var empty []string
	for r := 0; r <= maxRack; r++ {
		if count[r] == 0 {
			empty = append(empty, strconv.Itoa(r))
		}
	}
	if len(empty) > 0 {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: racks must be numbered 0..%d without gaps; rack %s has no node", maxRack, strings.Join(empty, ", "))
	}
	return len(ps.list) == before
}

// Racks is the number of racks (0 when nodes have no locality).
func (p *Plan) Racks() int {
	n := 0
	for _, h := range p.Nodes {
		n = max(n, h.Rack+1)
	}
	return n
}
