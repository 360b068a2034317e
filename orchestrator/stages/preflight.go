package stages

import (
	"slices"

	"github.com/benchrig/benchrig/orchestrator/plan"

	"debug/elf"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// preflightScript reports what the checks need as key=value lines and
// always exits 0: the orchestrator judges all hosts together.
// $1 path to check, $2 open-files limit wanted (0: none), $3 ports
// (comma-separated, may be empty), $4 fio size (0: no fio), $5 fio seconds,
// $6 the text of the OwnedMarker it writes into the path when it creates
// it (as install's mkdirOwnedScript does: teardown --wipe removes only
// what benchrig made).
const preflightScript = `path=$1 nofile=$2 ports=$3 fiosize=$4 fiosecs=$5 mark=$6
echo "os=$(uname -s)"
echo "arch=$(uname -m)"
if [ ! -e "$path" ] && [ ! -L "$path" ] && mkdir -p -- "$path" 2>/dev/null; then printf '%s\n' "$mark" >"$path/` + OwnedMarker + `"; fi
echo "path=$(cd "$path" 2>/dev/null && pwd)"
w="$path/.benchrig-writable.$$"
if [ -d "$path" ] && ( : >"$w" ) 2>/dev/null; then rm -f -- "$w"; echo "writable=1"; else echo "writable=0"; fi
echo "free_kb=$(df -Pk "$path" 2>/dev/null | awk 'NR==2 {print $4}')"
echo "fstype=$(stat -f -c %T "$path" 2>/dev/null)"
dev=$(df -P "$path" 2>/dev/null | awk 'NR==2 {print $1}')
dev=${dev#/dev/}
rot=
for d in "$dev" "$(echo "$dev" | sed 's/p\{0,1\}[0-9]*$//')"; do
  [ -n "$d" ] && [ -r "/sys/class/block/$d/queue/rotational" ] && { rot=$(cat "/sys/class/block/$d/queue/rotational"); break; }
done
echo "rotational=$rot"
echo "nofile_hard=$(ulimit -Hn)"
echo "nofile_start=$(` + raiseNofile + `; ulimit -n)"
echo "mount=$(df -P "$path" 2>/dev/null | awk 'NR==2 {print $6}')"
echo "mem_kb=$(awk '$1 == "MemTotal:" {print $2}' /proc/meminfo 2>/dev/null)"
` + portRangeScript + `
if [ "$nofile" -gt 0 ] 2>/dev/null; then
  if (ulimit -n "$nofile") 2>/dev/null; then echo "nofile_ok=1"; else echo "nofile_ok=0"; fi
fi
if command -v ss >/dev/null 2>&1; then listening=$(ss -Hltn 2>/dev/null | awk '{print $4}')
elif command -v netstat >/dev/null 2>&1; then listening=$(netstat -ltn 2>/dev/null | awk 'NR>2 {print $4}')
else listening=unknown; fi
for p in $(echo "$ports" | tr ',' ' '); do
  if [ "$listening" = unknown ]; then echo "port_$p=unknown"
  elif echo "$listening" | grep -q "[:.]$p\$"; then echo "port_$p=busy"
  else echo "port_$p=free"; fi
done
if [ "$fiosize" = 0 ]; then
  echo "fio=skipped"
elif command -v fio >/dev/null 2>&1; then
  f="$path/.benchrig-fio.$$"
  fio --name=benchrig --filename="$f" --size="$fiosize" --bs=4k --rw=randrw --rwmixread=75 \
    --direct=1 --ioengine=libaio --iodepth=64 --runtime="$fiosecs" --time_based \
    --output-format=terse --terse-version=3 2>/dev/null |
    awk -F';' 'NF > 49 {print "fio_read_kib=" $7; print "fio_read_iops=" $8; print "fio_write_kib=" $48; print "fio_write_iops=" $49}'
  rm -f "$f"
else
  echo "fio=absent"
fi`

// preflight compiles the preflight stage: every host reports, then the
// orchestrator judges them together and prints one table.
func (c *compiler) preflight(st *Stage, w Workload) {
	p := c.p
	pf := p.Preflight
	fioSecs := strconv.Itoa(int(math.Ceil(pf.FioRuntime.Std().Seconds())))
	arch := map[string]string{}
	for _, h := range p.Nodes {
		path := h.Store
		if path == "" || p.Flavor == plan.Postgres {
			// initdb and pg_basebackup want to create the data directory
			// themselves: check the directory it goes in.
			path = h.Dir
		}
		ports := []string{strconv.Itoa(h.SQLPort)}
		if h.HTTPPort > 0 {
			ports = append(ports, strconv.Itoa(h.HTTPPort))
		}
		// A node's open-files limit is judged on nofile_start, the limit
		// its start step gives cockroach (checkNodeOpenFiles).
		nofile := 0
		// The clock is read after the checks, on a connection already up,
		// so the round trip bounds its error tightly.
		st.add(Step{Host: h.Name, Kind: Exec, What: "preflight", Probe: "preflight", Idempotent: true,
			Cmd: remote.Cmd{Args: []string{"sh", "-c", preflightScript, "sh", path, strconv.Itoa(nofile), strings.Join(ports, ","), pf.FioSize, fioSecs, ownedMark(p)}, Quiet: true}},
			clockProbe(h.Name))
		if p.Flavor == plan.Cockroach {
			arch[h.Name] = binaryArch(p.Binaries.Database)
		}
	}
	for _, h := range p.Workload {
		st.add(Step{Host: h.Name, Kind: Exec, What: "preflight", Probe: "preflight", Idempotent: true,
			Cmd: remote.Cmd{Args: []string{"sh", "-c", preflightScript, "sh", h.Dir, strconv.Itoa(p.TPCC.Ulimit), "", "0", "0", ownedMark(p)}, Quiet: true}},
			clockProbe(h.Name))
		arch[h.Name] = binaryArch(c.driver())
	}
	var hosts []string
	for _, h := range append(append([]plan.Host(nil), p.Nodes...), p.Workload...) {
		hosts = append(hosts, h.Name)
	}
	st.Check = &Check{Kind: "preflight", Hosts: hosts, Arch: arch,
		MinFreeGB: pf.MinFreeGB, MaxClockOffset: pf.MaxClockOffset.Std(), MinReadIOPS: pf.MinReadIOPS,
		FioSize: pf.FioSize, FioRuntime: pf.FioRuntime.Std()}
	if n, ok := w.(needer); ok {
		st.Check.Needs, st.Check.Conns, st.Check.Dests = c.needsOf(n)
		st.Check.Nodes = c.nodeNeeds(st.Check.Conns)
		st.Check.Work = c.workNeeds(st.Check.Needs)
	}
	st.Check.Long = c.longSteps()
	if r, ok := c.f.(refuser); ok {
		st.Check.Refusals = r.refusals()
	}
}

// refuser is a flavor that knows, from the plan alone, what its servers
// would refuse when they start (postgresFlavor.refusals).
type refuser interface {
	refusals() map[string][]string
}

// Check is a stage's verdict over every host's probe answers, as data:
// its kind and its limits. The runner hands it the answers (Judge) once
// every host is done.
type Check struct {
	Kind  string   // "preflight", the only kind so far
	Hosts []string // plan order, for the table
	// Arch is the architecture of the binary each host is given ("" when
	// unknown): a host of another architecture fails.
	Arch           map[string]string
	MinFreeGB      float64
	MaxClockOffset time.Duration
	MinReadIOPS    float64
	// FioSize and FioRuntime are the disk benchmark's, for its result.
	FioSize    string
	FioRuntime time.Duration
	// Needs are what each workload host's run step needs (open files,
	// connections); Conns what each database node receives from them.
	Needs map[string]HostNeed
	Conns map[string]NodeConns
	// Refusals are what a host's server would refuse at its start, found
	// from the plan: the host fails with them whatever it answers.
	Refusals map[string][]string
	// Dests is, per workload host, the most connections one of its steps
	// opens to one destination ip:port, which the host's local port
	// range bounds (portrange.go).
	Dests map[string]DestConns
	// Nodes are what each database node needs besides connections (open
	// files, store bytes), Work what each workload host needs besides
	// them (memory, work-directory bytes), Long the estimates of the
	// plan's long steps and their waits' timeouts (needs.go).
	Nodes map[string]NodeNeed
	Work  map[string]WorkNeed
	Long  []LongStep
}

// String says what the check judges, for the dry-run.
func (c *Check) String() string {
	byArch := map[string][]string{}
	var archs []string
	for _, h := range c.Hosts {
		a := c.Arch[h]
		if a == "" {
			continue
		}
		if byArch[a] == nil {
			archs = append(archs, a)
		}
		byArch[a] = append(byArch[a], h)
	}
	var arch []string
	for _, a := range archs {
		on := "on " + strings.Join(byArch[a], ",")
		if len(byArch[a]) > 4 {
			on = fmt.Sprintf("on %d hosts", len(byArch[a]))
		}
		arch = append(arch, a+" "+on)
	}
	text := c.needsTables() + "   " + fmt.Sprintf("%s of %d hosts: fails below %s GB free, a store file system without room for its node's share or not on its store_mount, less memory than the driver's peak, a clock off by more than %s, a busy port, an open-files limit below a step's need or more connections to one ip:port than the local port range allows", c.Kind, len(c.Hosts), strconv.FormatFloat(c.MinFreeGB, 'f', -1, 64), plan.FormatDuration(c.MaxClockOffset))
	if len(arch) > 0 {
		text += ", a host unlike its binary (" + strings.Join(arch, "; ") + ")"
	}
	text += fmt.Sprintf("; warns below %.0f read IOPS", c.MinReadIOPS)
	for _, h := range c.Hosts {
		for _, r := range c.Refusals[h] {
			text += "; fails " + h + ": " + r
		}
	}
	return text
}

// Judge turns the probe answers into the check's table; an error fails
// the stage.
func (c *Check) Judge(results []ProbeResult) (string, error) {
	table, _, err := judgePreflight(c, results)
	return table, err
}

// JudgeBrief is Judge with, besides the table, its brief form for the
// console of a large cluster: the header and the rows of the hosts that
// are not ok, then a summary line (86 rows of "ok" say nothing).
func (c *Check) JudgeBrief(results []ProbeResult) (table, brief string, err error) {
	return judgePreflight(c, results)
}

// clockProbe reads a host's clock with a command that returns at once, so
// the round trip bounds the offset's error; a host that holds it past
// remote.AtOnce fails the step (it would hold the run stage otherwise).
func clockProbe(host string) Step {
	return Step{Host: host, Kind: Exec, What: "read clock", Probe: "clock", Idempotent: true,
		Cmd: remote.Cmd{Args: []string{"date", "+%s.%N"}, Quiet: true, Timeout: remote.AtOnce}}
}

// binaryArch is a binary's GOARCH-style architecture: read from the ELF
// header of a local file, guessed from a URL's name, "" when unknown.
func binaryArch(b plan.Binary) string {
	if b.Path != "" {
		f, err := elf.Open(b.Path)
		if err != nil {
			return ""
		}
		defer f.Close()
		switch f.Machine {
		case elf.EM_X86_64:
			return "amd64"
		case elf.EM_AARCH64:
			return "arm64"
		case elf.EM_386:
			return "386"
		case elf.EM_PPC64:
			return "ppc64le"
		case elf.EM_S390:
			return "s390x"
		}
		return strings.ToLower(f.Machine.String())
	}
	for _, a := range []string{"amd64", "arm64", "aarch64", "x86_64"} {
		if strings.Contains(b.URL, a) {
			return unameArch(a)
		}
	}
	return ""
}

// unameArch maps `uname -m` to GOARCH names.
func unameArch(m string) string {
	switch m {
	case "x86_64":
		return "amd64"
	case "aarch64":
		return "arm64"
	case "i686", "i386":
		return "386"
	}
	return m
}

// ProbeResult is a probe step's answer with its timing.
type ProbeResult struct {
	Host           string
	Probe          string // the step's Probe
	Sent, Received time.Time
	Stdout         string
}

// PreflightError says the preflight checks failed on some hosts; the
// table printed before it says which and why.
type PreflightError struct{ Failed, Hosts int }

func (e *PreflightError) Error() string {
	return fmt.Sprintf("preflight failed on %d of %d hosts (see the table above; fix them, or run with --skip-preflight)", e.Failed, e.Hosts)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// hostIndex orders hosts as the plan lists them.
func hostIndex(hosts []string, name string) int {
	if i := slices.Index(hosts, name); i >= 0 {
		return i
	}
	return math.MaxInt
}
