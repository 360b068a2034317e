package stages

import (
	"net"
	"path"
	"strconv"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/share"
	"github.com/benchrig/benchrig/remote"
)

// The benchrig binary (~25 MB) goes to every host that runs it. Sent from
// the operator's machine to each, 86 hosts would pull 2.2 GB through a
// laptop's uplink before anything starts. Instead it crosses that link
// once, gzip-compressed (about half its size), to the first node; every
// host that has it can serve it (`benchrig serve-file`, a detached job,
// on its plan address and binaries.share_port), and the others fetch it
// from there with curl over the cluster's network, as roachprod's tree
// distribution copies a file from node to node. No host needs
// credentials for another: the serving is plain HTTP of one public file,
// and every host checks the sha256 of what it unpacks against the digest
// pinned on this machine before it is installed.
//
// The hosts form a tree of fan-out shareFanout: phase k of the install
// stage fetches the hosts at depth k from their parents at depth k-1,
// whose servers were started when they got the binary; a last phase stops
// the servers. Only nodes serve: their addr is one the other hosts are
// known to reach (the workload hosts connect to it, the standbys or
// joining nodes too); a workload host's addr may be no more than an
// ssh_config alias. When no node runs benchrig (a crud run samples no
// host) the first node is still sent it, as a relay.
//
// A host that cannot fetch (its parent's server did not start, its port
// is taken, the parent stalls or dies mid-copy, curl is missing) is sent
// the gzip stream from this machine instead, and the run says so: the
// fetch is bounded (connect 5 s; under 64 KiB/s for 10 s, or 5 minutes
// in all, gives up; only a refused connection is tried again, for up to
// 30 s, since a server just started may not listen yet), so a
// dead peer costs a host at most 30 s, a frozen one 10 s, a slow one 5 minutes.
// Everything is resumable: a fetch cut short continues where it stopped
// (curl -C -, the server answers Range requests; every copy of the
// stream is the same bytes, remote.GzipStream), and a host that has the
// binary with the right digest is skipped.

// shareFanout is how many hosts fetch from one server at once: 86 hosts
// are a tree of depth 3 (1, 8, 64, 13), each server sending 8 copies of
// ~12 MB over the cluster's network.
const shareFanout = 8

// shareFor bounds each server's life: a server whose stop step never
// ran (the orchestrator died) exits by itself.
const shareFor = 15 * time.Minute

// fetchTimeout bounds a whole fetch-and-unpack command; the fetch script
// gives up on a slow peer well before (curl --max-time 300).
const fetchTimeout = 6 * time.Minute

// shareJob is the detached job name of a host's server.
const shareJob = "share-benchrig"

// fetchScript installs the gzip stream $1.part as the binary $4 if it
// unpacks to sha256 $3, fetching it first from the URL $2 when one is
// given (resuming a partial copy an earlier attempt left). Without a URL
// the stream must be there already (uploaded by the orchestrator). The
// stream that unpacked is kept as $1, for this host's `benchrig
// serve-file` to hand on byte for byte. A host that has $4 with the
// digest does nothing (but drops a kept stream that is not its). A
// stream that does not unpack to the digest is removed (a resume must
// not continue it) and the step fails, so the orchestrator sends the
// stream itself. curl gets the URL after "--" with --globoff and
// --proto =http: it is built from the plan's addr and port
// (net.JoinHostPort, so an IPv6 address is bracketed, not a glob). gzip
// reads the stream on its standard input, so no file name is an option
// to it.
const fetchScript = `set -eu
gz=$1 url=$2 sum=$3 dest=$4
part="$gz.part"
if [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status - 2>/dev/null; then
  if [ -f "$gz" ] && [ "$(gzip -dc <"$gz" | sha256sum)" != "$sum  -" ]; then rm -f -- "$gz"; fi
  echo "already installed: $dest"; exit 0
fi
if [ -n "$url" ]; then
  i=0
  until curl -fsS --globoff --proto =http --connect-timeout 5 --speed-limit 65536 --speed-time 10 --max-time 300 \
    -C - -o "$part" -- "$url"; do
    st=$?; i=$((i+1))
    # 7: refused; the server, just started, may not listen yet.
    if [ "$st" -ne 7 ] || [ "$i" -ge 30 ]; then exit "$st"; fi
    sleep 1
  done
elif [ ! -f "$part" ]; then
  echo "$part: nothing uploaded yet" >&2; exit 3
fi
tmp="$dest.unpack.$$"
trap 'rm -f -- "$tmp"' EXIT
if ! gzip -dc <"$part" >"$tmp" || ! echo "$sum  $tmp" | sha256sum -c --status -; then
  rm -f -- "$part"
  echo "$part does not unpack to sha256 $sum (removed)" >&2; exit 4
fi
chmod 755 -- "$tmp"
mv -f -- "$tmp" "$dest"
mv -f -- "$part" "$gz"
echo "installed $dest"`

// gzPath is where a host keeps the gzip stream of dest while it arrives.
func gzPath(dest string) string { return path.Join(path.Dir(dest), "."+path.Base(dest)+".gz") }

// fetchArgs is the fetch script's argument vector for s (url "" : unpack
// an uploaded stream).
func (s Step) fetchArgs(url string) []string {
	return []string{"sh", "-c", fetchScript, "sh", gzPath(s.Transfer.Remote), url, s.Transfer.SHA256, s.Transfer.Remote}
}

// FetchCmd is what a Fetch step runs first: the fetch from its Source
// (and unpack), or for a step without a Source, the unpack of a stream an
// earlier attempt uploaded (which fails when there is none).
func (s Step) FetchCmd() remote.Cmd {
	return remote.Cmd{Args: s.fetchArgs(s.URL), Timeout: fetchTimeout}
}

// UnpackCmd is what a Fetch step runs after Upload.
func (s Step) UnpackCmd() remote.Cmd {
	return remote.Cmd{Args: s.fetchArgs(""), Timeout: fetchTimeout}
}

// Upload is a Fetch step's direct upload: the gzip stream of the local
// file, from this machine, where a fetch would have put it.
func (s Step) Upload() remote.Transfer {
	return remote.Transfer{Local: s.Transfer.Local, Remote: gzPath(s.Transfer.Remote) + ".part", Mode: 0o644, SHA256: s.Transfer.SHA256, Gzip: true}
}

// shareBinary adds the steps that put b at dir/benchrig on every host of
// hosts: as installBinary for a URL (each host downloads it), for one host
// or with sharing off (binaries.share_port -1) as a direct gzip upload,
// else through the tree described above. Each host's mkdir step is in
// phase 0, before its fetch.
func (c *compiler) shareBinary(st *Stage, hosts []plan.Host, b plan.Binary) {
	if b.URL != "" {
		for _, h := range hosts {
			st.add(installBinary(h, b, h.Dir+"/benchrig", false)...)
		}
		return
	}
	if len(hosts) == 0 {
		return
	}
	port := c.p.Binaries.SharePort
	if port < 0 || len(hosts) == 1 {
		for _, h := range hosts {
			st.add(fetchStep(h, plan.Host{}, "", b))
		}
		return
	}
	parent, depth, maxDepth := shareTree(hosts, c.p.Nodes)
	// A server's port: binaries.share_port, one more for each earlier
	// server on the same addr (nodes sharing a machine).
	ports := map[string]int{}
	used := map[string]int{}
	serverPort := func(h plan.Host) int {
		if p, ok := ports[h.Name]; ok {
			return p
		}
		p := port + used[h.Addr]
		used[h.Addr]++
		ports[h.Name] = p
		return p
	}
	serves := map[string]bool{}
	for _, h := range hosts {
		if p, ok := parent[h.Name]; ok {
			serves[p.Name] = true
		}
	}
	var servers []plan.Host
	for d := 0; d <= maxDepth; d++ {
		if d > 0 {
			st.then()
		}
		for _, h := range hosts {
			if depth[h.Name] != d {
				continue
			}
			url := ""
			if p, ok := parent[h.Name]; ok {
				url = "http://" + net.JoinHostPort(p.Addr, strconv.Itoa(serverPort(p))) + share.URLPath(h.Dir+"/benchrig")
			}
			st.add(fetchStep(h, parent[h.Name], url, b))
			if serves[h.Name] {
				servers = append(servers, h)
				st.add(Step{Host: h.Name, Kind: Job, JobMode: JobDetach, What: "serve benchrig to other hosts",
					JobName: shareJob, JobDir: h.Dir + "/jobs",
					Cmd: remote.Cmd{Dir: h.Dir, Args: []string{"./benchrig", "serve-file",
						"--listen", net.JoinHostPort(h.Addr, strconv.Itoa(serverPort(h))),
						"--for", plan.Duration(shareFor).String(), "--stream", path.Base(gzPath("benchrig")), "benchrig"}}})
			}
		}
	}
	st.then()
	for _, h := range servers {
		st.add(Step{Host: h.Name, Kind: Job, JobMode: JobStop, What: "stop serving benchrig",
			JobName: shareJob, JobDir: h.Dir + "/jobs"})
	}
}

// fetchStep puts b at h's dir/benchrig: fetched from parent at url, or
// (no parent) sent from this machine.
func fetchStep(h, parent plan.Host, url string, b plan.Binary) Step {
	what := "upload benchrig (gzip)"
	if parent.Name != "" {
		what = "fetch benchrig from " + parent.Name
	}
	return Step{Host: h.Name, Kind: Fetch, What: what, Source: parent.Name, URL: url,
		Transfer: remote.Transfer{Local: b.Path, Remote: h.Dir + "/benchrig", Mode: 0o755, SHA256: b.SHA256}}
}

// shareTree lays hosts (nodes first, in plan order) out as a tree whose
// inner vertices are nodes only, each with up to shareFanout children in
// breadth-first order; when every node that has the binary has
// shareFanout children and hosts remain, they take more, round robin.
// It returns each host's parent (none for the root, hosts[0], nor for any
// host when hosts[0] is no node) and depth.
func shareTree(hosts []plan.Host, nodes []plan.Host) (parent map[string]plan.Host, depth map[string]int, maxDepth int) {
	isNode := map[string]bool{}
	for _, n := range nodes {
		isNode[n.Name] = true
	}
	parent, depth = map[string]plan.Host{}, map[string]int{}
	if !isNode[hosts[0].Name] {
		// A workload host's addr may not be reachable by the others:
		// each is sent the binary.
		return parent, depth, 0
	}
	servers := []plan.Host{hosts[0]} // nodes that have the binary, breadth-first
	children := map[string]int{}
	for next, qi := 1, 0; next < len(hosts); {
		var p plan.Host
		if qi < len(servers) {
			if p = servers[qi]; children[p.Name] >= shareFanout {
				qi++
				continue
			}
		} else {
			p = servers[next%len(servers)]
		}
		h := hosts[next]
		parent[h.Name], depth[h.Name] = p, depth[p.Name]+1
		maxDepth = max(maxDepth, depth[h.Name])
		children[p.Name]++
		if isNode[h.Name] {
			servers = append(servers, h)
		}
		next++
	}
	return parent, depth, maxDepth
}

// fetchListing is a Fetch step's dry-run line, scripts by name.
func (s Step) fetchListing() (string, []string) {
	fetch, scripts := abbreviated(s.FetchCmd())
	unpack, _ := abbreviated(s.UnpackCmd())
	return s.fetchDisplay(fetch, unpack), scripts
}

// fetchDisplay says what a Fetch step runs, in order: the first command
// and, when it fails, the direct upload and the unpack.
func (s Step) fetchDisplay(fetch, unpack remote.Cmd) string {
	up := "put " + s.Upload().String()
	if s.Source == "" {
		return unpack.Display() + "\n    if nothing was uploaded yet: " + up + ", and again"
	}
	return fetch.Display() + "\n    if the fetch from " + s.Source + " fails: " + up + ", then: " + unpack.Display()
}
