package stages

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// A workload host reaches one destination ip:port through at most one
// connection per local port: the 4-tuple (source address, source port,
// destination address, destination port) names a TCP connection, and a
// host has one source address towards a node. connect() picks the local
// port from net.ipv4.ip_local_port_range, skipping
// net.ipv4.ip_local_reserved_ports; when every port of the range carries
// a connection to that destination it fails with EADDRNOTAVAIL ("cannot
// assign requested address"). Linux's default range, 32768-60999, gives
// 28,232 connections per destination; a step that asks for more fails
// when it dials, hours into a plan (the 100k recipe's partitioning run
// sent 200,000 connections to one node before it was spread). Preflight reads
// each workload host's range and compares it with the most connections
// any of the host's steps opens to one destination.

// DestConns is the most connections one step of a workload host opens to
// one destination.
type DestConns struct {
	Conns int
	Dest  string // host:port
	Step  string // "run", "allocate", "partition", ...
}

// destConnsOf finds, per workload host, the step and destination with the
// most connections. URLs naming the same host:port add up (a rack with
// fewer nodes repeats its own in a v25.1+ host's list).
func destConnsOf(byHost map[string][]hostConns) map[string]DestConns {
	out := map[string]DestConns{}
	dest := map[string]string{} // URL -> host:port, each URL parsed once (a big plan lists 150 URLs per step)
	for h, list := range byHost {
		for _, hc := range list {
			sum := map[string]int{}
			for i, u := range hc.urls {
				if i >= len(hc.per) {
					break
				}
				d, ok := dest[u]
				if !ok {
					d = urlDest(u)
					dest[u] = d
				}
				sum[d] += hc.per[i]
			}
			for d, n := range sum {
				if old, ok := out[h]; !ok || n > old.Conns || n == old.Conns && d < old.Dest {
					out[h] = DestConns{Conns: n, Dest: d, Step: hc.step}
				}
			}
		}
	}
	return out
}

// urlDest is the host:port a connection URL dials.
func urlDest(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	return u.Host
}

// portRangeScript prints the two sysctls preflight reads, for the
// preflight script: local_port_range=LOW HIGH and local_reserved_ports=LIST (not port_*, which are the listening checks).
const portRangeScript = `echo "local_port_range=$(tr -s ' \t' '  ' </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)"
echo "local_reserved_ports=$(cat /proc/sys/net/ipv4/ip_local_reserved_ports 2>/dev/null)"`

// LocalPorts is the number of local ports connect() may use: the ports of
// net.ipv4.ip_local_port_range ("LOW HIGH", as /proc prints it) less those
// of net.ipv4.ip_local_reserved_ports inside it ("" or a comma-separated
// list of ports and LOW-HIGH ranges). It rejects anything else.
func LocalPorts(portRange, reserved string) (n, lo, hi int, err error) {
	f := strings.Fields(portRange)
	if len(f) != 2 {
		return 0, 0, 0, fmt.Errorf("port range %q: want two numbers", portRange)
	}
	if lo, err = parsePort(f[0]); err == nil {
		hi, err = parsePort(f[1])
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("port range %q: %w", portRange, err)
	}
	if lo > hi {
		return 0, 0, 0, fmt.Errorf("port range %q: low above high", portRange)
	}
	n = hi - lo + 1
	if reserved = strings.TrimSpace(reserved); reserved == "" {
		return n, lo, hi, nil
	}
	// The kernel prints the reserved ports sorted and merged, so the
	// ranges do not overlap; a hostile answer that overlaps only makes
	// the count lower, never negative.
	for _, item := range strings.Split(reserved, ",") {
		a, b, ok := strings.Cut(item, "-")
		from, err := parsePort(a)
		to := from
		if err == nil && ok {
			to, err = parsePort(b)
		}
		if err != nil || from > to {
			return 0, 0, 0, fmt.Errorf("reserved ports %q: bad item %q", reserved, item)
		}
		if from, to = max(from, lo), min(to, hi); from <= to {
			n -= to - from + 1
		}
	}
	return max(n, 0), lo, hi, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 0 || p > 65535 || s != strconv.Itoa(p) {
		return 0, fmt.Errorf("%q is not a port", s)
	}
	return p, nil
}

// judgeDest compares a workload host's most connections to one
// destination with the local ports its range gives: the table's cell and
// a failure ("" when none). A host that did not say its range (not
// Linux) is not judged.
func judgeDest(d DestConns, kv map[string]string) (cell, failure string) {
	n, lo, hi, err := LocalPorts(kv["local_port_range"], kv["local_reserved_ports"])
	if err != nil {
		return fmt.Sprintf("%d to one ip:port, local ports unknown", d.Conns), ""
	}
	cell = fmt.Sprintf("%d to one ip:port of %d local ports", d.Conns, n)
	if d.Conns <= n {
		return cell, ""
	}
	reserved := ""
	if n != hi-lo+1 {
		reserved = fmt.Sprintf(" less %d reserved (net.ipv4.ip_local_reserved_ports)", hi-lo+1-n)
	}
	return cell + " (too many)", fmt.Sprintf("the %s step opens %s from this host to %s, one destination, but net.ipv4.ip_local_port_range %d-%d%s gives %d local ports, one per connection to it: connect() would fail with \"cannot assign requested address\"; widen the range (sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\" allows 64512), spread the step over more nodes, or lower tpcc.conns",
		d.Step, nConns(d.Conns), d.Dest, lo, hi, reserved, n)
}
