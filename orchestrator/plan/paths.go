package plan

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/benchrig/benchrig/tpcc/runspec"
)

// What a plan may name on the hosts. checkPath (validate.go) holds every
// host path to characters that mean the same to a shell, pg_ctl and a conf
// file; the checks here hold them to their place: a work directory or a
// store is a directory of its own (never the root, a top-level directory,
// a home, or reached with ".."), because teardown --wipe removes it; a
// download URL is one http(s) URL; tpcc.extra_flags never names a file
// (where the driver writes is benchrig's choice, not the plan's).

// validateRemote reports the plan's host paths, URLs and driver flags that
// would reach outside their place.
func validateRemote(ps *problems, p *Plan) {
	seen := map[*string]bool{} // one problem per field, not per host
	for _, hs := range []struct {
		where string
		specs []HostSpec
		hosts []Host
	}{{"nodes", p.NodeGroups, p.Nodes}, {"workload", p.WorkGroups, p.Workload}} {
		for _, h := range hs.hosts {
			if h.spec == nil {
				continue
			}
			at := hs.where + "[" + h.Name + "]"
			for i := range hs.specs {
				if &hs.specs[i] == h.spec {
					at = fmt.Sprintf("%s[%d]", hs.where, i)
				}
			}
			for _, f := range []struct {
				field *string
				val   string
				what  string
			}{{&h.spec.Dir, h.Dir, "dir"}, {&h.spec.Store, h.Store, "store"}} {
				if *f.field == "" || seen[f.field] {
					continue
				}
				if msg := remoteDirProblem(f.val); msg != "" {
					seen[f.field] = true
					ps.at(p.nodeOr(f.field), "%s.%s: %q %s", at, f.what, f.val, msg)
				}
			}
			if h.spec.Store != "" && !seen[&h.spec.Store] && !seen[&h.spec.Dir] && within(h.Dir, h.Store) {
				seen[&h.spec.Store] = true
				ps.at(p.nodeOr(&h.spec.Store), "%s.store: %q holds the work directory %q; teardown --wipe would remove one with the other: give the store a directory of its own", at, h.Store, h.Dir)
			}
		}
	}
	b := &p.Binaries
	if v := b.InstallPath; v != "" {
		if msg := remoteFileProblem(v); msg != "" {
			ps.at(p.nodeOr(&b.InstallPath), "binaries.install_path: %q %s", v, msg)
		}
	}
	for _, bin := range []struct {
		b     *Binary
		where string
	}{{&b.Database, "binaries.database"}, {b.Swap, "binaries.swap"}, {b.Driver, "binaries.driver"}, {b.Workload, "binaries.workload"}} {
		if bin.b == nil {
			continue
		}
		if v := bin.b.Host; v != "" && hasDotDot(v) {
			ps.at(p.nodeOr(&bin.b.Host), "%s.host: %q climbs with '..'; name the directory itself", bin.where, v)
		}
		if v := bin.b.URL; v != "" {
			if msg := urlProblem(v); msg != "" {
				ps.at(p.nodeOr(&bin.b.URL), "%s.url: %s", bin.where, msg)
			}
		}
	}
	validateExtraFlags(ps, p)
}

// hasDotDot says whether a path has a ".." segment.
func hasDotDot(v string) bool {
	for _, s := range strings.Split(v, "/") {
		if s == ".." {
			return true
		}
	}
	return false
}

// remoteDirProblem says why v cannot be a directory benchrig owns on a
// host (a work directory or a store), or "" when it can. A relative path
// is under the login's home.
func remoteDirProblem(v string) string {
	clean := path.Clean(v)
	switch {
	case hasDotDot(v):
		return "climbs with '..': name the directory itself"
	case clean == ".":
		return "is the login's home directory itself (relative paths are under it): name a directory inside it, such as benchrig"
	case clean == "/":
		return "is the root directory"
	case isHome(clean):
		return "is a home directory: name a directory inside it"
	case path.IsAbs(clean) && strings.Count(clean, "/") == 1:
		return "is a top-level directory: name a directory inside it"
	case clean != v:
		return fmt.Sprintf("is not in its plain form: write %q", clean)
	}
	return ""
}

// isHome says whether an absolute clean path is a user's home on the
// usual layouts (/home/NAME, /root, /Users/NAME).
func isHome(clean string) bool {
	if clean == "/root" {
		return true
	}
	parts := strings.Split(strings.TrimPrefix(clean, "/"), "/")
	return path.IsAbs(clean) && len(parts) == 2 && (parts[0] == "home" || parts[0] == "Users")
}

// remoteFileProblem says why v cannot be the path of a file benchrig
// installs (binaries.install_path), or "".
func remoteFileProblem(v string) string {
	clean := path.Clean(v)
	switch {
	case hasDotDot(v):
		return "climbs with '..': name the file itself"
	case clean == "." || clean == "/" || strings.HasSuffix(v, "/"):
		return "names a directory: name the file to install, such as /usr/local/bin/cockroach"
	case clean != v:
		return fmt.Sprintf("is not in its plain form: write %q", clean)
	}
	return ""
}

// within says whether b is a or holds it (both relative to the same home,
// or both absolute).
func within(a, b string) bool {
	a, b = path.Clean(a), path.Clean(b)
	if path.IsAbs(a) != path.IsAbs(b) {
		return false
	}
	return a == b || b == "/" || strings.HasPrefix(a, b+"/")
}

// maxURLLen bounds a download URL (it is an argument on every host).
const maxURLLen = 2048

// urlProblem says why v cannot be a download URL for curl on the hosts,
// or "". The scheme and host are checked beside the binary's other fields
// (checkBinary); this is the URL's shape: printable ASCII only (curl and
// the dry-run show it as written; anything else is percent-encoded), and
// no user:password (it would be printed in the dry-run and every log).
// curl gets it with --globoff, so [ ] { } are plain characters.
func urlProblem(v string) string {
	if len(v) > maxURLLen {
		return fmt.Sprintf("longer than %d bytes", maxURLLen)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c >= 0x7f {
			return fmt.Sprintf("%q holds a space, control or non-ASCII byte at byte %d: percent-encode it", v, i)
		}
	}
	if u, err := url.Parse(v); err == nil && u.User != nil {
		return "holds a user name or password: a download URL is printed in the dry-run and the logs; use a URL without credentials"
	}
	return ""
}

// validateExtraFlags holds tpcc.extra_flags to `tpcc run` flags the plan
// does not otherwise set: each entry is one --name or --name=value (a bare
// word would be read as a connection URL), and no flag in
// runspec.PlanSetFlags (files the driver writes, and what the plan's own
// fields set).
func validateExtraFlags(ps *problems, p *Plan) {
	if p.TPCC.Driver == DriverWorkload {
		return // the release's own workload flags: validateWorkloadRun
	}
	n := p.nodeOr(&p.TPCC.Extra)
	for i, f := range p.TPCC.Extra {
		at := seqItem(n, i)
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch {
		case !strings.HasPrefix(f, "-") || name == "":
			ps.at(at, "tpcc.extra_flags[%d]: %q is not a flag: give each as --name or --name=value", i, f)
		case runspec.PlanSetFlags[name] != "":
			ps.at(at, "tpcc.extra_flags[%d]: --%s is not for extra_flags: %s", i, name, runspec.PlanSetFlags[name])
		}
	}
}
