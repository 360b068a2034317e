package stages

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/probe"
)

// hostReport is one host's answers as the checks read them.
type hostReport struct {
	host  string
	kv    map[string]string
	clock ProbeResult
}

// hostCheck is one host's preflight findings: the table's cells and the
// verdict's failures and warnings.
type hostCheck struct {
	host, arch, disk, mem, nofile, conns, clock, ports, fio string
	failures, warnings                                      []string
}

func (c *hostCheck) fail(format string, a ...any) {
	c.failures = append(c.failures, fmt.Sprintf(format, a...))
}
func (c *hostCheck) warn(format string, a ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, a...))
}

// preflightChecks are the checks of every host, in the order their
// findings are said. Each reads the host's answers and the plan's needs
// and fills its cells; none knows of the others.
var preflightChecks = []func(pf *Check, r hostReport, c *hostCheck){
	checkArch,
	checkDisk,
	checkStore,
	checkMemory,
	checkHostOpenFiles,
	checkNodeOpenFiles,
	checkDests,
	checkNodeConns,
	checkRefusals,
	checkClock,
	checkPorts,
	checkFio,
}

// judgePreflight turns every host's report into one table; any failure
// stops the run.
func judgePreflight(pf *Check, results []ProbeResult) (string, string, error) {
	answered := false
	for _, r := range results {
		answered = answered || strings.TrimSpace(r.Stdout) != ""
	}
	if !answered {
		// Only the Recorder answers nothing at all (the script always
		// prints): there is nothing to judge in a dry run.
		text := "   preflight: the checks are judged on the hosts' answers; a dry run has none\n"
		return text, text, nil
	}
	sort.SliceStable(results, func(i, j int) bool {
		return hostIndex(pf.Hosts, results[i].Host) < hostIndex(pf.Hosts, results[j].Host)
	})
	clocks := map[string]ProbeResult{}
	for _, r := range results {
		if r.Probe == "clock" {
			clocks[r.Host] = r
		}
	}
	var checks []hostCheck
	for _, r := range results {
		if r.Probe != "preflight" {
			continue
		}
		rep := hostReport{host: r.Host, kv: probe.ParseKV(r.Stdout), clock: clocks[r.Host]}
		c := hostCheck{host: r.Host}
		for _, check := range preflightChecks {
			check(pf, rep, &c)
		}
		checks = append(checks, c)
	}
	return renderPreflight(pf, checks)
}

// checkArch: the host runs Linux on its binary's architecture.
func checkArch(pf *Check, r hostReport, c *hostCheck) {
	arch := unameArch(r.kv["arch"])
	c.arch = r.kv["os"] + "/" + arch
	if want := pf.Arch[r.host]; want != "" && arch != want {
		c.fail("binary is %s, host is %s", want, arch)
	}
	if os := r.kv["os"]; os != "" && os != "Linux" {
		c.fail("not Linux")
	}
}

// freeBytes is the free space the host reported at its path.
func freeBytes(kv map[string]string) int64 {
	kb, _ := strconv.ParseInt(kv["free_kb"], 10, 64)
	return kb << 10
}

// checkDisk: the path (a node's store, a workload host's work directory)
// can be written, has the plan's minimum free, and is not on a network
// file system.
func checkDisk(pf *Check, r hostReport, c *hostCheck) {
	kv := r.kv
	freeGB := float64(freeBytes(kv)) / (1 << 30)
	c.disk = fmt.Sprintf("%.1f GB free (%s)", freeGB, kv["fstype"])
	if kv["writable"] == "0" {
		// A directory that exists but is read-only (or owned by another
		// user) fails initdb or cockroach start much later.
		where := kv["path"]
		if n, ok := pf.Nodes[r.host]; ok && where == "" {
			where = n.Store // not there, and not creatable by the login user
		}
		c.fail("cannot create files in the store path %s (the login user must be able to: e.g. sudo mkdir -p it and chown it to that user)", where)
	}
	if freeGB < pf.MinFreeGB {
		c.fail("%.1f GB free at %s, need %.1f", freeGB, kv["path"], pf.MinFreeGB)
	}
	switch fs := kv["fstype"]; {
	case strings.Contains(fs, "nfs"), strings.Contains(fs, "cifs"), strings.Contains(fs, "smb"), strings.Contains(fs, "fuse"):
		c.warn("store on a network file system (%s)", fs)
	}
	if w, ok := pf.Work[r.host]; ok && w.DirBytes > freeBytes(kv) {
		c.fail("run: work directory bytes: need %s (%s), have %s free at %s: free space there or give the host another dir",
			humanBytes(w.DirBytes), w.DirWhy, humanBytes(freeBytes(kv)), kv["path"])
	}
}

// checkStore: a node's store file system holds its share of the import
// and is the one the plan names (store_mount).
func checkStore(pf *Check, r hostReport, c *hostCheck) {
	need, ok := pf.Nodes[r.host]
	if !ok || need.StoreBytes == 0 {
		return
	}
	kv := r.kv
	if kv["writable"] == "0" {
		return // checkDisk says so; the file system cannot be read
	}
	have := freeBytes(kv)
	c.disk = fmt.Sprintf("need %s, %s free (%s on %s)", humanBytes(need.StoreBytes), humanBytes(have), kv["fstype"], kv["mount"])
	if need.StoreMount != "" && kv["mount"] != "" && kv["mount"] != need.StoreMount {
		c.fail("import: store file system: %s is on %s, not on %s (store_mount): mount the store's disk at %s before the run",
			kv["path"], kv["mount"], need.StoreMount, need.StoreMount)
	}
	if have < need.StoreBytes {
		c.disk += " (too little)"
		c.fail("import: store bytes: need %s at %s (%s), have %s free on %s: give the node a store on a larger disk (store:, store_mount:) or add nodes",
			humanBytes(need.StoreBytes), kv["path"], need.StoreWhy, humanBytes(have), dash(kv["mount"]))
	}
}

// checkMemory: a workload host holds the driver's peak.
func checkMemory(pf *Check, r hostReport, c *hostCheck) {
	kb, err := strconv.ParseInt(r.kv["mem_kb"], 10, 64)
	if err != nil {
		return
	}
	have := kb << 10
	c.mem = humanBytes(have)
	w, ok := pf.Work[r.host]
	if !ok || w.MemBytes == 0 {
		return
	}
	c.mem = fmt.Sprintf("need %s of %s", humanBytes(w.MemBytes), humanBytes(have))
	if have < w.MemBytes {
		c.mem += " (too little)"
		c.fail("run: memory: need %s (%s), have %s: lower tpcc.conns or spread the run over more workload hosts", humanBytes(w.MemBytes), w.MemWhy, humanBytes(have))
	}
}

// checkHostOpenFiles: a workload host's open-files limit, as its run
// step will get it.
func checkHostOpenFiles(pf *Check, r hostReport, c *hostCheck) {
	kv := r.kv
	if n, node := pf.Nodes[r.host]; !node || n.OpenFiles == 0 {
		c.nofile = kv["nofile_hard"] // a node judged on its own need says it there
	}
	if kv["nofile_ok"] == "0" {
		c.fail("cannot raise the open-files limit as planned (hard limit %s)", kv["nofile_hard"])
		c.nofile += " (too low)"
	}
	if need, ok := pf.Needs[r.host]; ok {
		var failure string
		c.nofile, c.conns, failure = judgeOpenFiles(need, kv)
		if failure != "" {
			c.failures = append(c.failures, failure)
		}
	}
}

// checkNodeOpenFiles: a cockroach node's open-files limit, as its process
// gets it (the start step raises the soft limit to the hard one; the
// node itself raises a lower one to its recommendation), against its
// connections, its engine's files and its own network.
//
// fidelity:v20.1/N1
func checkNodeOpenFiles(pf *Check, r hostReport, c *hostCheck) {
	need, ok := pf.Nodes[r.host]
	if !ok || need.OpenFiles == 0 {
		return
	}
	have, known := hostLimit(r.kv["nofile_start"])
	if !known {
		c.nofile = fmt.Sprintf("need %d, limit unknown", need.OpenFiles)
		return
	}
	if hard, ok := hostLimit(r.kv["nofile_hard"]); ok && have < min(hard, need.Recommended) {
		have = min(hard, need.Recommended) // cockroach start raises it so far itself
	}
	c.nofile = fmt.Sprintf("need %d, have %s", need.OpenFiles, limitText(have))
	if have >= need.OpenFiles {
		return
	}
	c.nofile += " (too low)"
	step := need.Step
	if step == "" {
		step = "start"
	}
	c.fail("%s: open files: need %d (%s), have %s (the limit cockroach start gets: the start step raises its soft limit to the hard limit %s): raise the hard limit to at least %d (nofile in /etc/security/limits.conf, or LimitNOFILE of sshd)",
		step, need.OpenFiles, need.OpenFilesWhy, limitText(have), r.kv["nofile_hard"], need.OpenFiles)
}

func limitText(n int) string {
	if n == math.MaxInt {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

// checkDests: the most connections a workload host opens to one
// ip:port, against its local port range.
func checkDests(pf *Check, r hostReport, c *hostCheck) {
	d, ok := pf.Dests[r.host]
	if !ok || d.Conns == 0 {
		return
	}
	cell, failure := judgeDest(d, r.kv)
	c.conns = strings.TrimPrefix(c.conns+", "+cell, ", ")
	if failure != "" {
		c.failures = append(c.failures, failure)
	}
}

// checkNodeConns: the connections a node receives, against its limit.
func checkNodeConns(pf *Check, r hostReport, c *hostCheck) {
	nc, ok := pf.Conns[r.host]
	if !ok {
		return
	}
	var failure string
	c.conns, failure = judgeConns(nc)
	if failure != "" {
		c.failures = append(c.failures, failure)
	}
}

// checkRefusals: what the host's server would refuse at its start.
func checkRefusals(pf *Check, r hostReport, c *hostCheck) {
	c.failures = append(c.failures, pf.Refusals[r.host]...)
}

// checkClock: the host's clock against this machine's.
func checkClock(pf *Check, r hostReport, c *hostCheck) {
	secs, err := probe.ParseClock(r.host, r.clock.Stdout)
	if err != nil {
		return
	}
	ch := probe.NewClockHost(r.host, r.clock.Sent, r.clock.Received, secs)
	c.clock = fmt.Sprintf("%+.1f ms ±%.1f", ch.OffsetMs, ch.RTTMs/2)
	limit := float64(pf.MaxClockOffset) / float64(time.Millisecond)
	if math.Abs(ch.OffsetMs) > limit+ch.RTTMs/2 {
		c.fail("clock %s off this machine's (limit %s)", time.Duration(ch.OffsetMs*float64(time.Millisecond)).Round(time.Millisecond), plan.FormatDuration(pf.MaxClockOffset))
	}
}

// checkPorts: the node's ports are free.
func checkPorts(_ *Check, r hostReport, c *hostCheck) {
	var ports []string
	for k, v := range r.kv {
		if port, ok := strings.CutPrefix(k, "port_"); ok {
			ports = append(ports, port+" "+v)
			if v == "busy" {
				c.fail("port %s is already in use", port)
			}
		}
	}
	sort.Strings(ports)
	c.ports = strings.Join(ports, ", ")
}

// checkFio: the disk benchmark's figures, and a warning for a slow or
// rotational disk where data lives (hosts that skip the benchmark,
// workload hosts, are not judged on it).
func checkFio(pf *Check, r hostReport, c *hostCheck) {
	kv := r.kv
	rotational := kv["rotational"] == "1" && kv["fio"] != "skipped"
	fio, err := probe.FioFromKV(r.host, kv["path"], pf.FioSize, pf.FioRuntime, kv)
	switch {
	case err != nil:
		c.fio = "-"
		c.warnings = append(c.warnings, err.Error())
	case fio.Status == "absent":
		c.fio = "fio not installed"
	case fio.Status == "measured":
		c.fio = fmt.Sprintf("read %.0f IOPS %.1f MiB/s, write %.0f IOPS %.1f MiB/s", fio.ReadIOPS, fio.ReadKiBps/1024, fio.WriteIOPS, fio.WriteKiBps/1024)
		slow := fio.ReadIOPS < pf.MinReadIOPS
		if slow {
			c.warn("disk reads %.0f IOPS under 4k random 75/25: network-attached or HDD-class storage", fio.ReadIOPS)
		}
		// Virtual disks often call themselves rotational; a measured disk
		// is judged by what it did.
		rotational = rotational && slow
	default:
		c.fio = "-"
	}
	if rotational {
		c.warn("the kernel reports a rotational disk (HDD)")
	}
}

// renderPreflight is the table of every host's findings and its brief
// form (the rows not ok and a summary); an error when a host failed.
func renderPreflight(pf *Check, checks []hostCheck) (string, string, error) {
	var b, brief strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	btw := tabwriter.NewWriter(&brief, 0, 0, 2, ' ', 0)
	const header = "HOST\tOS/ARCH\tDISK\tMEMORY\tNOFILE\tCONNS\tCLOCK\tPORTS\tDISK BENCHMARK (fio 4k randrw 75/25)\tVERDICT"
	fmt.Fprintln(tw, header)
	failed, warned, shown := 0, 0, 0
	for _, c := range checks {
		verdict := "ok"
		switch {
		case len(c.failures) > 0:
			verdict = "FAIL: " + strings.Join(c.failures, "; ")
			failed++
		case len(c.warnings) > 0:
			verdict = "warn: " + strings.Join(c.warnings, "; ")
			warned++
		}
		row := strings.Join([]string{c.host, c.arch, c.disk, dash(c.mem), dash(c.nofile), dash(c.conns), c.clock, dash(c.ports), c.fio, verdict}, "\t") + "\n"
		fmt.Fprint(tw, row)
		if verdict != "ok" {
			if shown++; shown == 1 {
				fmt.Fprintln(btw, header)
			}
			fmt.Fprint(btw, row)
		}
	}
	tw.Flush()
	btw.Flush()
	b.WriteString(pf.limitsNote())
	fmt.Fprintf(&brief, "   preflight: %d of %d hosts ok", len(checks)-failed-warned, len(checks))
	if warned > 0 {
		fmt.Fprintf(&brief, ", %d with warnings", warned)
	}
	if failed > 0 {
		fmt.Fprintf(&brief, ", %d failed", failed)
	}
	brief.WriteString(" (every host's row: output.log)\n")
	brief.WriteString(pf.limitsNote())
	if failed > 0 {
		return b.String(), brief.String(), &PreflightError{Failed: failed, Hosts: len(checks)}
	}
	return b.String(), brief.String(), nil
}
