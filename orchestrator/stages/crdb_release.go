package stages

import (
	"strconv"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// nodeRelease is what the cockroach flavor's node commands take from the
// cluster's release: how a node logs, how it is stopped for a binary
// swap (a session's statements before reading crdb_internal come with
// the release's SettleStatements). It is
// chosen once per plan (releaseOf) from the plan's crdb.Release, whose
// facts (Stop, LogConfig) it turns into commands; the
// stages ask it and never test a version themselves.
type nodeRelease interface {
	// logFlags are `cockroach start`'s logging flags for node h.
	logFlags(h plan.Host) []string
	// stop is the step that stops node h (a running one; a stopped one
	// is left alone, so a resumed swap repeats nothing).
	stop(f cockroachFlavor, h plan.Host) Step
}

// releaseOf picks the plan's nodeRelease: without a known release, the
// v20.1 recipes' commands (the zero crdb.Release's), as before releases
// were told apart.
func releaseOf(p *plan.Plan) nodeRelease {
	rel, _ := p.Release()
	if rel.Stop == crdb.StopDrain {
		return drainRelease{rel: rel}
	}
	return quitRelease{}
}

// quitRelease is up to v20.1: `cockroach quit` stops a node (deprecated
// in v20.2, removed in v22.2), logs go to the store's logs directory.
type quitRelease struct{}

func (quitRelease) logFlags(plan.Host) []string { return nil }

// fidelity:v20.1/S71
//
// fidelity:v25.4/41
func (quitRelease) stop(f cockroachFlavor, h plan.Host) Step {
	return Step{Host: h.Name, Kind: Exec, What: "stop node", Idempotent: true, // crdbStopScript: a stopped node is fine
		Cmd: remote.Cmd{Args: []string{"sh", "-c", crdbStopScript, "sh", h.Dir + "/cockroach.pid", f.bin(), "quit", "--insecure", "--host=" + hostPort(h)}}}
}

// drainRelease is v20.2 on (crdb.StopDrain): `cockroach node drain
// --self` moves the node's leases and SQL clients away, then the process
// gets SIGTERM and, if it has not exited within drainGrace, SIGKILL (the
// documented node shutdown; `cockroach quit` no longer exists from
// v22.2). From v21.1 a node takes its logging as YAML in --log
// (crdb.Release.LogConfig).
type drainRelease struct{ rel crdb.Release }

// drainGrace bounds the wait for a drained node to exit after SIGTERM:
// the documentation's systemd unit gives it 60 seconds
// (TimeoutStopSec=60) before SIGKILL.
const drainGrace = 60

// fidelity:v25.4/5
func (r drainRelease) logFlags(h plan.Host) []string {
	if !r.rel.LogConfig {
		return nil
	}
	dir, err := remote.YAMLQuote(h.Dir + "/logs")
	if err != nil {
		// Host directories are validated as plain paths; this is never
		// reached, and the node then logs to its store's logs directory.
		return nil
	}
	return []string{"--log=file-defaults: {dir: " + dir + "}"}
}

// fidelity:v25.4/40
func (r drainRelease) stop(f cockroachFlavor, h plan.Host) Step {
	args := []string{"sh", "-c", crdbDrainScript, "sh", h.Dir + "/cockroach.pid", strconv.Itoa(drainGrace),
		f.bin(), "node", "drain", "--self", "--insecure", "--host=" + hostPort(h)}
	// crdbDrainScript says "not running" for a node it already stopped:
	// safe to repeat after a dropped connection.
	return Step{Host: h.Name, Kind: Exec, What: "drain and stop node", Idempotent: true, Cmd: remote.Cmd{Args: args}}
}

// crdbDrainScript stops a running node as the documentation's node
// shutdown does: drain it (the command after the pid file and the grace
// seconds), then SIGTERM, then SIGKILL once grace seconds have passed. A
// failed drain (a node already unhealthy) does not keep the node up: the
// swap must replace its binary either way. A node that is not running
// is left alone, so a resumed swap repeats nothing.
//
// fidelity:v25.4/40
const crdbDrainScript = `pidf=$1 grace=$2; shift 2
if ! { [ -f "$pidf" ] && pid=$(cat "$pidf") && kill -0 "$pid" 2>/dev/null; }; then echo "not running"; exit 0; fi
"$@" || echo "drain failed (exit $?); stopping the node anyway"
kill -TERM "$pid" 2>/dev/null
i=0
while kill -0 "$pid" 2>/dev/null; do
  if [ "$i" -ge "$grace" ]; then echo "pid $pid still running ${grace}s after SIGTERM: SIGKILL"; kill -KILL "$pid" 2>/dev/null; sleep 1; break; fi
  sleep 1; i=$((i+1))
done
if kill -0 "$pid" 2>/dev/null; then echo "pid $pid survived SIGKILL" >&2; exit 1; fi
echo "stopped"`

func init() { scriptNames[crdbDrainScript] = "crdb-drain" }
