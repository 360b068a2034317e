package stages

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// The teardown stage: never in a plan's default run, selected by
// `benchrig teardown` or `--only teardown`. It stops benchrig's detached
// jobs on every host (drivers, loads, host samplers), then the database
// on every node; with Options.Wipe it then removes the stores and the
// work directories. Every step is idempotent: stopping what is stopped
// and removing what is gone succeed.

// jobsStopScript stops every benchrig job of a jobs directory that still
// runs: a pid file whose process carries the job's BENCHRIG_JOB marker
// (as remote.StartJob sets it; a recycled pid lacks it) gets SIGTERM to its
// process group, then SIGKILL after $2 seconds.
const jobsStopScript = `dir=$1 grace=$2
[ -d "$dir" ] || { echo "no jobs directory: $dir"; exit 0; }
ours() {
	kill -0 "$1" 2>/dev/null || return 1
	[ -r "/proc/$1/environ" ] || return 0
	tr '\0' '\n' <"/proc/$1/environ" | grep -qxF "BENCHRIG_JOB=$2"
}
live=
for pidf in "$dir"/*.pid; do
	[ -f "$pidf" ] || continue
	pid=$(cat -- "$pidf") name=${pidf%.pid}
	[ -f "$name.exit" ] && continue
	if ours "$pid" "$name"; then
		echo "stopping job ${name##*/} (pid $pid)"
		kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
		live="$live $pid"
	fi
done
[ -n "$live" ] || { echo "no job running"; exit 0; }
i=0
while [ "$i" -lt "$((grace * 10))" ]; do
	left=
	for pid in $live; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
	[ -n "$left" ] || exit 0
	sleep 0.1
	i=$((i+1))
done
for pid in $left; do echo "killing pid $pid"; kill -KILL "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null; done
exit 0`

// crdbSignalScript sends SIGTERM to the node of pid file $1 if it runs,
// and records when (in $1.term, kept from a first attempt, so a repeat
// does not restart the node's grace): the first half of the whole
// cluster's stop (crdbReapScript is the second).
const crdbSignalScript = `pidf=$1
if ! { [ -f "$pidf" ] && pid=$(cat -- "$pidf") && kill -0 "$pid" 2>/dev/null; }; then echo "not running"; exit 0; fi
[ -f "$pidf.term" ] || date +%s >"$pidf.term"
kill -TERM "$pid" 2>/dev/null
echo "SIGTERM sent to pid $pid"`

// crdbReapScript waits for the node of pid file $1 to exit and sends it
// SIGKILL once $2 seconds have passed since its SIGTERM (the time
// crdbSignalScript recorded; a node it never signalled is signalled now).
// A node that is gone is fine (a resumed teardown).
//
// fidelity:v25.4/49
const crdbReapScript = `pidf=$1 grace=$2
if ! { [ -f "$pidf" ] && pid=$(cat -- "$pidf") && kill -0 "$pid" 2>/dev/null; }; then rm -f -- "$pidf.term"; echo "not running"; exit 0; fi
since=$(cat -- "$pidf.term" 2>/dev/null) || since=
case $since in ''|*[!0-9]*) since=$(date +%s); kill -TERM "$pid" 2>/dev/null;; esac
while kill -0 "$pid" 2>/dev/null; do
  if [ "$(($(date +%s) - since))" -ge "$grace" ]; then echo "pid $pid still running ${grace}s after SIGTERM: SIGKILL"; kill -KILL "$pid" 2>/dev/null; sleep 1; break; fi
  sleep 1
done
if kill -0 "$pid" 2>/dev/null; then echo "pid $pid survived SIGKILL" >&2; exit 1; fi
rm -f -- "$pidf.term"
echo "stopped"`

// teardownGrace is how long, in seconds, a job or a node has to stop on
// SIGTERM before it is killed.
const teardownGrace = "60"

// teardown adds the teardown steps: jobs first (a driver must not log a
// flood of errors for a database going away under it), then the nodes,
// then, with wipe, the files.
func (c *compiler) teardown(st *Stage) error {
	p := c.p
	for _, h := range sampledHosts(p) {
		st.add(Step{Host: h.Name, Kind: Exec, What: "stop benchrig jobs",
			Cmd: remote.Cmd{Args: []string{"sh", "-c", jobsStopScript, "sh", h.Dir + "/jobs", teardownGrace}}})
	}
	st.then()
	c.f.stopAll(st)
	if !c.opt.Wipe {
		return nil
	}
	st.then()
	for _, h := range sampledHosts(p) {
		var paths []string
		// The store first: it may lie inside the work directory.
		for _, d := range []string{h.Store, h.Dir} {
			if d == "" || slices.Contains(paths, d) {
				continue
			}
			if err := wipeable(d); err != nil {
				return fmt.Errorf("teardown --wipe: host %s: %w", h.Name, err)
			}
			paths = append(paths, d)
		}
		args := append([]string{"sh", "-c", wipeScript, "sh"}, paths...)
		if p.Flavor == plan.Cockroach && p.SSH.Sudo {
			// The store may belong to root (written by a sudo start).
			args = append([]string{"sudo", "-n"}, args...)
		}
		st.add(Step{Host: h.Name, Kind: Exec, What: "remove what benchrig made (holding " + OwnedMarker + "): " + strings.Join(paths, " and "), Cmd: remote.Cmd{Args: args}})
	}
	return nil
}

// OwnedMarker is the file benchrig writes into every directory it creates
// on a host (work directories, stores: mkdirOwnedScript, pgStartScript):
// teardown --wipe removes a directory only when it holds one, so a plan
// naming a directory benchrig did not make (a home, /etc, a colleague's
// data) cannot have it removed.
const OwnedMarker = ".benchrig-owned"

// mkdirOwnedScript creates each directory ($2...) that does not exist and
// marks it as benchrig's with OwnedMarker (holding $1); a directory that
// already exists is used as it is, and marked only if benchrig made it
// before. A directory appears already marked (made under a temporary
// name, marked, then renamed into place), so the step is safe to repeat
// after a dropped connection: a half-done attempt leaves no unmarked
// directory that the repeat would take for someone else's. Then the work
// directory ($2) gets its jobs directory.
const mkdirOwnedScript = `set -eu
mark=$1; shift
for d; do
  if [ -f "$d/` + OwnedMarker + `" ]; then continue; fi
  if [ -e "$d" ] || [ -L "$d" ]; then
    echo "using $d, which benchrig did not create: teardown --wipe will leave it"
    continue
  fi
  mkdir -p -- "$(dirname -- "$d")"
  tmp="$d.benchrig-new"
  rm -rf -- "$tmp"
  mkdir -- "$tmp"
  printf '%s\n' "$mark" >"$tmp/` + OwnedMarker + `"
  mv -- "$tmp" "$d"
done
mkdir -p -- "$1/jobs"`

// mkdirOwned is the step argv that creates dirs as benchrig's (the work
// directory first).
func mkdirOwned(p *plan.Plan, dirs ...string) []string {
	return append([]string{"sh", "-c", mkdirOwnedScript, "sh", ownedMark(p)}, dirs...)
}

// ownedMark is what an OwnedMarker holds: which plan made the directory.
func ownedMark(p *plan.Plan) string { return "benchrig plan " + p.Name }

// wipeScript removes each directory it is given that holds OwnedMarker
// (as a regular file, in a directory that is not a symbolic link). It
// never removes the root, a top-level directory, a home (/home/NAME,
// /root, /Users/NAME: under sudo ~ is root's), the login's home or a
// directory holding it, whatever the path says once resolved; a directory without the marker is
// named and left. What is gone already is fine (a resumed teardown).
const wipeScript = `set -u
home=$(cd ~ 2>/dev/null && pwd -P) || home=
st=0
for d; do
  if [ ! -e "$d" ] && [ ! -L "$d" ]; then echo "already gone: $d"; continue; fi
  if [ -L "$d" ] || [ ! -d "$d" ]; then echo "left $d: not a directory of its own (a symbolic link or a file)"; continue; fi
  real=$(cd -P -- "$d" && pwd -P) || { echo "cannot resolve $d"; st=1; continue; }
  case "$real" in
  /home/*/*|/Users/*/*|/root/*) ;;
  /home/*|/Users/*|/root) echo "refused $d: $real is a home directory"; st=1; continue;;
  /*/*) ;;
  *) echo "refused $d: $real is the root or a top-level directory"; st=1; continue;;
  esac
  if [ -n "$home" ]; then
    case "$home/" in "$real"/*) echo "refused $d: it is or holds the home directory $home"; st=1; continue;; esac
  fi
  if [ ! -f "$d/` + OwnedMarker + `" ] || [ -L "$d/` + OwnedMarker + `" ]; then
    echo "left $d: no ` + OwnedMarker + ` in it (benchrig did not create it)"; continue
  fi
  rm -rf -- "$real" && echo "removed $d" || st=1
done
exit $st`

// wipeable refuses a path whose removal would take more than benchrig's
// files: the root, the login's home (""/"."), anything climbing out with
// "..", or a top-level directory such as /var or /home.
func wipeable(p string) error {
	clean := path.Clean(p)
	switch {
	case clean == "." || clean == "/" || strings.HasPrefix(clean, "../") || clean == "..":
		return fmt.Errorf("will not remove %q", p)
	case strings.Contains("/"+clean+"/", "/../"):
		return fmt.Errorf("will not remove %q: it climbs with ..", p)
	case path.IsAbs(clean) && strings.Count(clean, "/") < 2:
		return fmt.Errorf("will not remove %q: a top-level directory", p)
	}
	return nil
}

// stopAll stops every server, one step per node (pg_ctl's fast stop).
func (f postgresFlavor) stopAll(st *Stage) {
	for _, h := range f.p.Nodes {
		st.add(Step{Host: h.Name, Kind: Exec, What: "stop node",
			Cmd: remote.Cmd{Args: []string{"sh", "-c", pgStopScript, "sh", f.p.Binaries.Database.Host, h.Store}}})
	}
}

// stopAll stops the whole cluster as the release's documentation stops a
// test cluster (crdb.Release.ClusterStopGrace): every node gets SIGTERM
// in one phase, which takes a moment per node whatever ssh.concurrency's
// waves, and only then does each wait for its node to exit, killing it
// ClusterStopGrace seconds after its SIGTERM. The stop thus takes about
// one grace at any cluster size. Draining node after node while the rest
// serve (the swap's stop) would, once the first wave had left ranges
// without a quorum, make every later drain wait out --drain-wait.
//
// fidelity:v25.4/49
func (f cockroachFlavor) stopAll(st *Stage) {
	rel, _ := f.p.Release()
	grace := strconv.Itoa(rel.ClusterStopGrace)
	for _, h := range f.p.Nodes {
		st.add(Step{Host: h.Name, Kind: Exec, What: "send SIGTERM to node (every node at once)", Idempotent: true,
			Cmd: remote.Cmd{Args: []string{"sh", "-c", crdbSignalScript, "sh", h.Dir + "/cockroach.pid"}}})
	}
	st.then()
	for _, h := range f.p.Nodes {
		st.add(Step{Host: h.Name, Kind: Exec, What: "wait for node to exit (SIGKILL " + grace + "s after its SIGTERM)", Idempotent: true,
			Cmd: remote.Cmd{Args: []string{"sh", "-c", crdbReapScript, "sh", h.Dir + "/cockroach.pid", grace}}})
	}
}
