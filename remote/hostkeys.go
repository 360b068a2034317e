package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"

	"github.com/benchrig/benchrig/internal/localfile"
)

// HostKeyPolicy says what to do with a host key that known_hosts does not
// vouch for. A key that differs from a known one is refused under every
// policy except HostKeysInsecureIgnore.
type HostKeyPolicy int

const (
	// HostKeysStrict refuses unknown hosts (OpenSSH's
	// StrictHostKeyChecking=yes). The default.
	HostKeysStrict HostKeyPolicy = iota
	// HostKeysAcceptNew adds an unknown host's key to the first
	// known_hosts file and proceeds (StrictHostKeyChecking=accept-new).
	HostKeysAcceptNew
	// HostKeysInsecureIgnore checks nothing. It exists for throwaway
	// machines whose keys change on every boot; the CLI only sets it
	// behind --insecure-ignore-host-keys and says so on stderr.
	HostKeysInsecureIgnore
)

func (p HostKeyPolicy) String() string {
	switch p {
	case HostKeysStrict:
		return "strict"
	case HostKeysAcceptNew:
		return "accept-new"
	case HostKeysInsecureIgnore:
		return "insecure-ignore"
	}
	return fmt.Sprintf("HostKeyPolicy(%d)", int(p))
}

// HostKeyError is a host key that was refused: unknown to known_hosts
// under the strict policy, or different from the known one (Changed).
type HostKeyError struct {
	Addr    string   // the address checked, as known_hosts spells it ([127.0.0.2]:2222)
	Changed bool     // a key is known for Addr and this is not it
	KeyType string   // type of the presented key
	Got     string   // SHA256 fingerprint of the presented key
	Want    []string // fingerprints on file for Addr, "type SHA256:... (file:line)"
	Files   []string // known_hosts files consulted
}

func (e *HostKeyError) Error() string {
	if e.Changed {
		return fmt.Sprintf("HOST KEY CHANGED for %s: it presented %s %s but known_hosts has %s; refusing to connect (possible man-in-the-middle; if the host was reinstalled, remove the old entry with ssh-keygen -R '%s')",
			e.Addr, e.KeyType, e.Got, strings.Join(e.Want, ", "), e.Addr)
	}
	return fmt.Sprintf("host key for %s is unknown (%s %s) and not in %s; refusing to connect (verify and add it, or pass --accept-new-host-keys)",
		e.Addr, e.KeyType, e.Got, strings.Join(e.Files, ", "))
}

// KnownHostsError is a new host key that accept-new could not record in
// the known_hosts file (it does not exist and may not be created, or it
// is not a regular file): the connection is refused, and stays refused
// until the operator fixes the file or the flags.
type KnownHostsError struct {
	Addr string
	Err  error
}

func (e *KnownHostsError) Error() string {
	return fmt.Sprintf("accept new host key of %s: %v", e.Addr, e.Err)
}

func (e *KnownHostsError) Unwrap() error { return e.Err }

// hostKeys checks host keys against known_hosts files under a policy. It
// is shared by every connection of an executor; accept-new appends under
// its lock so concurrent first connections write one line each.
type hostKeys struct {
	policy HostKeyPolicy
	files  []string
	// create lets accept-new create files[0] when it does not exist;
	// without it only the user's default ~/.ssh/known_hosts is created
	// (as ssh does), so that a plan's known_hosts cannot make benchrig
	// write a new file wherever it names.
	create bool

	mu  sync.Mutex
	db  *knownhosts.HostKeyDB // nil: no file exists yet
	new map[string][]ssh.PublicKey
}

func newHostKeys(policy HostKeyPolicy, files []string, create bool) (*hostKeys, error) {
	h := &hostKeys{policy: policy, files: files, create: create, new: map[string][]ssh.PublicKey{}}
	if policy == HostKeysInsecureIgnore {
		return h, nil
	}
	if len(files) == 0 {
		return nil, errors.New("no known_hosts file given")
	}
	if err := h.load(); err != nil {
		return nil, err
	}
	return h, nil
}

// load (re)reads the known_hosts files that exist; a missing file is an
// empty one, as for ssh(1), but one that exists and cannot be read or
// parsed is an error rather than a silently empty trust store. Each is
// first read as a bounded regular file (a FIFO would hang the parser) and
// every line checked (CheckKnownHosts), so that accept-new appends only to
// a file that already is a known_hosts file.
func (h *hostKeys) load() error {
	var present []string
	for _, f := range h.files {
		err := CheckKnownHostsFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		present = append(present, f)
	}
	if len(present) == 0 {
		h.db = nil
		return nil
	}
	db, err := knownhosts.NewDB(present...)
	if err != nil {
		return fmt.Errorf("known_hosts: %w", err)
	}
	h.db = db
	return nil
}

// CheckKnownHostsFile reads path as a bounded regular file and checks
// that every line is a known_hosts entry, a comment or blank; the error
// names path:line:col. A missing file is an error matching
// os.ErrNotExist.
func CheckKnownHostsFile(path string) error {
	data, err := localfile.Read(path, localfile.MaxKnownHosts)
	if err != nil {
		return fmt.Errorf("known_hosts %w", err)
	}
	return CheckKnownHosts(path, data)
}

// CheckKnownHosts checks that every line of data is a known_hosts entry
// (plain, hashed or with a @cert-authority/@revoked marker), a comment or
// blank.
func CheckKnownHosts(path string, data []byte) error {
	for n, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if _, _, _, _, _, err := ssh.ParseKnownHosts([]byte(t)); err != nil {
			col := len(line) - len(strings.TrimLeft(line, " \t")) + 1
			return fmt.Errorf("known_hosts %s:%d:%d: not a known_hosts line (%v); benchrig reads and appends to known_hosts files only", path, n+1, col, err)
		}
	}
	return nil
}

// algorithms is the host key algorithms to offer for addr, scoped to the
// key types on file for it, so x/crypto does not negotiate a type that
// known_hosts lacks and then report a mismatch (golang/go#29286). Nil
// (x/crypto's defaults) when the host is not on file.
func (h *hostKeys) algorithms(addr string) []string {
	if h.policy == HostKeysInsecureIgnore {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.db == nil {
		return nil
	}
	return h.db.HostKeyAlgorithms(addr)
}

func (h *hostKeys) callback(hostname string, remote net.Addr, key ssh.PublicKey) error {
	if h.policy == HostKeysInsecureIgnore {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var err error
	if h.db == nil {
		err = &xknownhosts.KeyError{}
	} else {
		err = h.db.HostKeyCallback()(hostname, remote, key)
	}
	if err == nil {
		return nil
	}
	addr := knownhosts.Normalize(hostname)
	herr := &HostKeyError{Addr: addr, KeyType: key.Type(), Got: ssh.FingerprintSHA256(key), Files: h.files}
	var ke *xknownhosts.KeyError
	if !errors.As(err, &ke) {
		return fmt.Errorf("known_hosts check of %s: %w", addr, err)
	}
	if len(ke.Want) > 0 {
		herr.Changed = true
		for _, w := range ke.Want {
			herr.Want = append(herr.Want, fmt.Sprintf("%s %s (%s:%d)", w.Key.Type(), ssh.FingerprintSHA256(w.Key), w.Filename, w.Line))
		}
		return herr
	}
	// Unknown. Under accept-new a key accepted earlier in this run is
	// already in the file; the in-memory copy covers a file we could not
	// re-read.
	for _, k := range h.new[addr] {
		if k.Type() == key.Type() {
			if string(k.Marshal()) == string(key.Marshal()) {
				return nil
			}
			herr.Changed = true
			herr.Want = []string{fmt.Sprintf("%s %s (accepted earlier in this run)", k.Type(), ssh.FingerprintSHA256(k))}
			return herr
		}
	}
	if h.policy != HostKeysAcceptNew {
		return herr
	}
	if err := h.appendKey(hostname, remote, key); err != nil {
		return &KnownHostsError{Addr: addr, Err: err}
	}
	h.new[addr] = append(h.new[addr], key)
	return h.load()
}

func (h *hostKeys) appendKey(hostname string, remote net.Addr, key ssh.PublicKey) error {
	path := h.files[0]
	// No O_CREATE: a new file is made only below, where allowed; no
	// blocking on a FIFO put in place since load.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if errors.Is(err, os.ErrNotExist) {
		if !h.create && !isDefaultKnownHosts(path) {
			return fmt.Errorf("%s does not exist; accept-new creates only ~/.ssh/known_hosts unless --create-known-hosts is given", path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	}
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s: not a regular file; host keys are appended only to a known_hosts file", path)
	}
	// Record only the dialed name: the remote address of a jump-host
	// tunnel is meaningless, and for a direct dial it is the same.
	if err := knownhosts.WriteKnownHost(f, hostname, &net.TCPAddr{IP: net.IPv4zero}, key); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// isDefaultKnownHosts says whether path is the user's ~/.ssh/known_hosts,
// which ssh itself creates on first use.
func isDefaultKnownHosts(path string) bool {
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	return filepath.Clean(path) == filepath.Join(home, ".ssh", "known_hosts")
}
