// Command rehearse is `make rehearse`: the 100k recipe's shape run for
// real on this machine, measured from the outside.
//
// It starts 86 OpenSSH sshd on loopback (sshtest, 127.0.0.2-87) and runs,
// each as a child process whose /proc it samples:
//
//  1. the 5-host baseline: 3 PostgreSQL nodes and 2 workload hosts, the
//     crud benchmark with every host sampled, every stage, then teardown
//     --wipe;
//  2. five workload hosts: 3 nodes and 5 workload hosts, TPC-C on 5
//     partitions (load, run, collect, merge, report), then teardown --wipe;
//  3. the recipe's shape: 81 nodes in 27 racks and 5 workload hosts, the
//     same crud run as 1, every stage;
//  4. a fault: the run stage of 3 again (resume --from run), with 10 of
//     the 86 hosts' sshd frozen (SIGSTOP) for 60 s while it runs; it must
//     end with exit 0 and every result file; then teardown --wipe of 3.
//
// Per stage it prints the wall time and the orchestrator's own figures:
// CPU (utime+stime from /proc/<pid>/stat, sampled), peak RSS (VmRSS
// sampled; VmHWM and the child's rusage for the whole process), and the
// most TCP connections it held at once (its socket fds ESTABLISHED in
// /proc/<pid>/net/tcp); then 3 against 1 as ratios, CPU per host side by
// side. Stage boundaries come from the run's state.json.
//
//	go run ./docs/measure/rehearse -bin bin/benchrig
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/remote/sshtest"
)

const (
	nodes    = 81
	racks    = 27
	loads    = 5
	hosts    = nodes + loads
	frozen   = 10
	freezeOf = 60 * time.Second
	sample   = 200 * time.Millisecond
)

func main() {
	bin := flag.String("bin", "bin/benchrig", "benchrig binary (also uploaded to the hosts)")
	dir := flag.String("dir", "/tmp/benchrig-rehearse", "lab and run directory")
	pgbin := flag.String("pgbin", "", "PostgreSQL programs on the hosts (default: the newest /usr/lib/postgresql/*/bin)")
	flag.Parse()
	if err := run(*bin, *dir, *pgbin); err != nil {
		fmt.Fprintln(os.Stderr, "rehearse:", err)
		os.Exit(1)
	}
}

// figures are one process's (or one stage's) measurements.
type figures struct {
	wall    time.Duration
	cpu     time.Duration
	peakRSS int64 // bytes
	conns   int
}

// measured is a child run: figures per stage in order, and the whole.
type measured struct {
	order  []string
	stages map[string]*figures
	whole  figures
	hwm    int64
	code   int
	out    string
	runDir string // the run directory the command made ("" for teardown)
}

type rehearsal struct {
	bin, pgbin, dir, home, user string
	lab                         *sshtest.Lab
	cfg                         string
	port                        int
}

func run(bin, dir, pgbin string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if pgbin == "" {
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(found) == 0 {
			return errors.New("no PostgreSQL programs under /usr/lib/postgresql (run make setup)")
		}
		sort.Strings(found)
		pgbin = filepath.Dir(found[len(found)-1])
	}
	os.RemoveAll(dir)
	started := time.Now()
	lab, err := sshtest.Start(filepath.Join(dir, "lab"), hosts)
	if err != nil {
		return err
	}
	defer lab.Close()
	fmt.Printf("rehearse: %d sshd on 127.0.0.2-%d in %s\n", hosts, hosts+1, time.Since(started).Round(time.Millisecond))
	r := &rehearsal{bin: bin, pgbin: pgbin, dir: dir, lab: lab, user: lab.User(), port: 25500}
	u, err := user.Lookup(lab.User())
	if err != nil {
		return err
	}
	r.home = u.HomeDir
	var names []string
	for i := 1; i <= nodes; i++ {
		names = append(names, fmt.Sprintf("db%02d", i))
	}
	for i := 1; i <= loads; i++ {
		names = append(names, fmt.Sprintf("load%d", i))
	}
	r.cfg = filepath.Join(lab.Dir(), "ssh_config")
	if err := lab.WriteSSHConfig(r.cfg, "lab-", names); err != nil {
		return err
	}
	defer r.stopPostgres()

	// 1. The 5-host baseline.
	small := r.plan("rh5", 3, 2, crudRun)
	m5, err := r.measure("5 hosts, crud", small)
	if err != nil {
		return err
	}
	t5, err := r.teardown("5 hosts", small, m5)
	if err != nil {
		return err
	}
	// 2. Five workload hosts, TPC-C.
	tp := r.plan("rh8", 3, 5, tpccRun)
	m8, err := r.measure("3 nodes + 5 workload hosts, TPC-C", tp)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(runDir(m8), "report.md")); err != nil {
		return fmt.Errorf("the five-host TPC-C run left no report: %w", err)
	}
	if _, err := r.teardown("8 hosts", tp, m8); err != nil {
		return err
	}
	// 3. The recipe's shape.
	big := r.plan("rh86", nodes, loads, crudRun)
	m86, err := r.measure("86 hosts, crud", big)
	if err != nil {
		return err
	}
	// 4. The fault, then the teardown.
	if err := r.fault(big, m86); err != nil {
		return err
	}
	t86, err := r.teardown("86 hosts", big, m86)
	if err != nil {
		return err
	}
	m5.add("teardown --wipe", t5)
	m86.add("teardown --wipe", t86)
	report(m86, m5, m8)
	fmt.Printf("\nrehearse: everything done in %s\n", time.Since(started).Round(time.Second))
	return nil
}

func (m *measured) add(name string, f figures) {
	m.order = append(m.order, name)
	m.stages[name] = &f
}

const crudRun = `benchmark: crud
crud: {goroutines: 4, records: 3000, select_repeat: 3, many_repeat: 10}
tpcc:
  warehouses: 1
stages: [preflight, install, start, init, configure, run, collect, merge]
`

const tpccRun = `tpcc:
  warehouses: 5
  partitions: 5
  split_load: true
  wait: "0.1"
  ramp: 5s
  duration: 30s
stages: [preflight, install, start, init, configure, import, partition, run, collect, merge]
`

// plan writes a postgres plan of n nodes (the first n lab hosts) and w
// workload hosts (load1..w) and returns its path.
func (r *rehearsal) plan(name string, n, w int, tail string) string {
	rk := min(racks, n)
	text := fmt.Sprintf(`version: 1
name: %s
flavor: postgres
ssh:
  config: %s
  known_hosts: %s
nodes:
  - name: db[01-%02d]
    ssh: lab-db[01-%02d]
    addr: 127.0.0.[2-%d]
    sql_port: %d
    racks: %d
    dir: benchrig-rehearse/%s/db[01-%02d]
workload:
  - name: load[1-%d]
    ssh: lab-load[1-%d]
    dir: benchrig-rehearse/%s/load[1-%d]
binaries:
  database: {host: %s}
preflight:
  fio_size: "0"
%s`, name, r.cfg, r.lab.KnownHostsPath(), n, n, n+1, r.port, rk, name, n, w, w, name, w, r.pgbin, tail)
	path := filepath.Join(r.dir, name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		panic(err) // the directory was just made
	}
	return path
}

// measure runs `benchrig run PLAN` and samples it.
func (r *rehearsal) measure(what, plan string) (*measured, error) {
	fmt.Printf("\n== %s: benchrig run %s\n", what, filepath.Base(plan))
	m, err := r.sampled(filepath.Join(r.dir, "runs"), r.bin, "run", "--runs-dir", filepath.Join(r.dir, "runs"), "--start-lead", "3s", plan)
	if err != nil {
		return nil, err
	}
	if m.code != 0 {
		return m, fmt.Errorf("%s: benchrig run exited %d:\n%s", what, m.code, tail(m.out, 40))
	}
	fmt.Printf("   done in %s, exit 0\n", m.whole.wall.Round(time.Millisecond))
	return m, nil
}

// teardown runs `benchrig teardown RUN_DIR --wipe --yes` and returns its
// figures; the nodes' and hosts' directories must be gone.
func (r *rehearsal) teardown(what, plan string, m *measured) (figures, error) {
	fmt.Printf("== %s: benchrig teardown --wipe\n", what)
	t, err := r.sampled("", r.bin, "teardown", runDir(m), "--wipe", "--yes")
	if err != nil {
		return figures{}, err
	}
	if t.code != 0 {
		return figures{}, fmt.Errorf("%s: teardown exited %d:\n%s", what, t.code, tail(t.out, 30))
	}
	name := strings.TrimSuffix(filepath.Base(plan), ".yaml")
	if _, err := os.Stat(filepath.Join(r.home, "benchrig-rehearse", name, "db01")); !os.IsNotExist(err) {
		return figures{}, fmt.Errorf("%s: teardown --wipe left db01's directory: %v", what, err)
	}
	fmt.Printf("   done in %s\n", t.whole.wall.Round(time.Millisecond))
	return t.whole, nil
}

// fault runs the run stage of the big plan again (resume --from run) and
// freezes 10 hosts' sshd (two workload hosts, eight nodes) for 60 s as
// soon as the crud jobs run; the run must end with exit 0 and every
// result file: each workload host's crud result, every host's samples.
func (r *rehearsal) fault(plan string, m *measured) error {
	fmt.Printf("== fault: resume --from run with %d hosts' sshd frozen for %s\n", frozen, freezeOf)
	rd := runDir(m)
	if err := os.RemoveAll(filepath.Join(rd, "results")); err != nil {
		return err
	}
	victims := []int{nodes, nodes + 1} // load1, load2
	for i := 0; len(victims) < frozen; i++ {
		victims = append(victims, 1+i*10) // db02, db12, ... db72: standbys
	}
	cmd := exec.Command(r.bin, "resume", "--from", "run", "--start-lead", "3s", rd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	froze := false
	var frozeAt time.Time
	for !froze {
		select {
		case err := <-done:
			return fmt.Errorf("the run ended (%v) before the fault:\n%s", err, tail(out.String(), 30))
		case <-time.After(sample):
		}
		st, err := rundir.ReadState(filepath.Join(rd, "state.json"))
		if err != nil {
			continue
		}
		for _, s := range st.Stages {
			if s.Name != "run" || s.Status != rundir.Running {
				continue
			}
			for _, h := range s.Hosts {
				if h.Host == "load1" && strings.Contains(h.Current, "crud") {
					froze = true
				}
			}
		}
	}
	for _, i := range victims {
		if err := r.lab.Pause(i); err != nil {
			return err
		}
	}
	frozeAt = time.Now()
	fmt.Printf("   froze %d hosts' sshd (load1, load2 and 8 standbys) at the crud start\n", len(victims))
	select {
	case err := <-done:
		for _, i := range victims {
			_ = r.lab.Resume(i)
		}
		return fmt.Errorf("the run ended (%v) while %d hosts were frozen:\n%s", err, frozen, tail(out.String(), 30))
	case <-time.After(freezeOf):
	}
	for _, i := range victims {
		if err := r.lab.Resume(i); err != nil {
			return err
		}
	}
	fmt.Printf("   resumed them after %s\n", time.Since(frozeAt).Round(time.Millisecond))
	err := <-done
	code := exitCode(err)
	fmt.Printf("   the run ended %s after the freeze began, exit %d\n", time.Since(frozeAt).Round(time.Second), code)
	if code != 0 {
		return fmt.Errorf("the run with frozen hosts exited %d:\n%s", code, tail(out.String(), 40))
	}
	missing := 0
	for i := 1; i <= loads; i++ {
		if _, err := os.Stat(filepath.Join(rd, "results", fmt.Sprintf("load%d", i), fmt.Sprintf("crud%d.json", i))); err != nil {
			fmt.Printf("   missing: %v\n", err)
			missing++
		}
	}
	files, _ := filepath.Glob(filepath.Join(rd, "results", "*", "hoststat.jsonl"))
	if len(files) != hosts {
		fmt.Printf("   host samples: %d of %d files\n", len(files), hosts)
		missing += hosts - len(files)
	}
	if missing > 0 {
		return fmt.Errorf("the run with frozen hosts lacks %d result files", missing)
	}
	redials := strings.Count(out.String(), "reachable again")
	fmt.Printf("   every result file: %d crud results, %d host sample files; %d re-attachments reported\n", loads, len(files), redials)
	return nil
}

// sampled runs a command and samples its /proc every 200 ms; stage
// boundaries come from the state.json of the run directory it makes
// under runs ("" for a command without stages: one row).
func (r *rehearsal) sampled(runs string, name string, args ...string) (*measured, error) {
	before := map[string]bool{}
	if runs != "" {
		old, _ := filepath.Glob(filepath.Join(runs, "*", "state.json"))
		for _, o := range old {
			before[o] = true
		}
	}
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	m := &measured{stages: map[string]*figures{}}
	var state string
	cur := ""
	var lastCPU time.Duration
	var stageStart time.Time
	var hwm int64
	step := func() {
		cpu, rss, ok := procStat(pid)
		if !ok {
			return
		}
		if h := procHWM(pid); h > hwm {
			hwm = h
		}
		conns := procConns(pid)
		if state == "" && runs != "" {
			now, _ := filepath.Glob(filepath.Join(runs, "*", "state.json"))
			for _, n := range now {
				if !before[n] {
					state = n
				}
			}
		}
		stage := "whole"
		if state != "" {
			stage = "(between stages, after the last)"
			if st, err := rundir.ReadState(state); err == nil {
				for _, s := range st.Stages {
					if s.Status == rundir.Running {
						stage = s.Name
					}
				}
			}
		} else if runs != "" {
			stage = "(before the first stage)"
		}
		if stage != cur {
			if f := m.stages[cur]; f != nil {
				f.wall += time.Since(stageStart)
			}
			cur, stageStart = stage, time.Now()
			if m.stages[stage] == nil {
				m.stages[stage] = &figures{}
				m.order = append(m.order, stage)
			}
		}
		f := m.stages[stage]
		f.cpu += cpu - lastCPU
		lastCPU = cpu
		f.peakRSS = max(f.peakRSS, rss)
		f.conns = max(f.conns, conns)
		m.whole.peakRSS = max(m.whole.peakRSS, rss)
		m.whole.conns = max(m.whole.conns, conns)
	}
	var err error
loop:
	for {
		select {
		case err = <-done:
			break loop
		case <-time.After(sample):
			step()
		}
	}
	if f := m.stages[cur]; f != nil {
		f.wall += time.Since(stageStart)
	}
	m.whole.wall = time.Since(start)
	m.code = exitCode(err)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.whole.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		m.hwm = ru.Maxrss * 1024
	}
	// The last sample's CPU to the process's end goes to the last stage.
	if f := m.stages[cur]; f != nil && m.whole.cpu > lastCPU {
		f.cpu += m.whole.cpu - lastCPU
	}
	m.hwm = max(m.hwm, hwm)
	m.out = out.String()
	if state != "" {
		m.runDir = filepath.Dir(state)
	}
	return m, nil
}

func runDir(m *measured) string { return m.runDir }

// procStat reads utime+stime and the resident set of pid.
func procStat(pid int) (cpu time.Duration, rss int64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command: state(0) ppid ... utime(11) stime(12) ... rss(21).
	if len(f) < 22 {
		return 0, 0, false
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	stt, _ := strconv.ParseInt(f[12], 10, 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(ut+stt) * time.Second / hz, pages * int64(os.Getpagesize()), true
}

// procHWM is the peak resident set (VmHWM) of pid.
func procHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// procConns counts pid's TCP sockets in state ESTABLISHED.
func procConns(pid int) int {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, t := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, t))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "01" && inodes[f[9]] {
				n++
			}
		}
	}
	return n
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

func ms(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }

// report prints the stages of the 86-host run beside the 5-host run's,
// with ratios, and the goals.
func report(big, small, tpcc *measured) {
	fmt.Printf("\nper stage: the orchestrator at %d hosts against %d hosts (same plan shape: crud, every host sampled)\n", hosts, 5)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\twall 86\twall 5\tCPU 86\tCPU 5\tCPU/host 86\tCPU/host 5\tratio\tpeak RSS 86\tpeak RSS 5\tconns 86\tconns 5\t")
	for _, name := range big.order {
		b, s := big.stages[name], small.stages[name]
		if s == nil {
			s = &figures{}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", name, ms(b.wall), ms(s.wall), ms(b.cpu), ms(s.cpu),
			ms(b.cpu/hosts), ms(s.cpu/5), ratio(b.cpu, s.cpu), mb(b.peakRSS), mb(s.peakRSS), b.conns, s.conns)
	}
	bc, sc := big.whole.cpu+big.stages["teardown --wipe"].cpu, small.whole.cpu+small.stages["teardown --wipe"].cpu
	fmt.Fprintf(tw, "all\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", ms(big.whole.wall), ms(small.whole.wall), ms(bc), ms(sc),
		ms(bc/hosts), ms(sc/5), ratio(bc, sc), mb(big.hwm), mb(small.hwm), big.whole.conns, small.whole.conns)
	tw.Flush()
	fmt.Printf("\n3 nodes + 5 workload hosts, TPC-C on 5 partitions: %s wall, CPU %s, peak RSS %s, at most %d connections\n",
		ms(tpcc.whole.wall), ms(tpcc.whole.cpu), mb(tpcc.hwm), tpcc.whole.conns)
	for _, name := range tpcc.order {
		f := tpcc.stages[name]
		fmt.Printf("  %-10s %9s wall, CPU %8s, peak RSS %s, %d conns\n", name, ms(f.wall), ms(f.cpu), mb(f.peakRSS), f.conns)
	}
	per := float64(bc) / hosts / (float64(sc) / 5)
	fmt.Printf("\ngoals: peak RSS %s at 86 hosts (< 200 MB: %s); CPU per host at 86 / at 5 = %.2f (<= 1.5: %s)\n",
		mb(big.hwm), met(big.hwm < 200e6), per, met(per <= 1.5))
}

func ratio(a, b time.Duration) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/hosts/(float64(b)/5))
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// stopPostgres stops any server a failed rehearsal left running.
func (r *rehearsal) stopPostgres() {
	datas, _ := filepath.Glob(filepath.Join(r.home, "benchrig-rehearse", "*", "db*", "pgdata"))
	for _, d := range datas {
		args := []string{r.pgbin + "/pg_ctl", "-D", d, "-m", "immediate", "stop"}
		if os.Geteuid() == 0 {
			args = append([]string{"runuser", "-u", r.user, "--"}, args...)
		}
		_ = exec.Command(args[0], args[1:]...).Run()
	}
}
