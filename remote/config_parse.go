package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/benchrig/benchrig/internal/localfile"
)

// benchrig reads ssh_config itself and never runs `ssh -G`: OpenSSH
// evaluates `Match exec` (and runs ProxyCommand, KnownHostsCommand, ...)
// on this machine, and a plan's ssh.config is written by someone else. It
// reads the subset that says where and as whom to connect, ignores what
// only tunes ssh(1)'s own behaviour, and refuses what would run a command
// or load code, so that a config never means more to OpenSSH than to
// benchrig without saying so.

// supportedKeys are the keywords benchrig acts on.
var supportedKeys = map[string]bool{
	"host": true, "hostname": true, "port": true, "user": true, "identityfile": true, "proxyjump": true,
}

// ignoredKeys only tune ssh(1) itself (multiplexing, forwarding, crypto
// preferences, ...): benchrig has its own equivalent or no use for them.
// They are accepted and have no effect.
var ignoredKeys = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`addkeystoagent addressfamily batchmode bindaddress bindinterface
		canonicaldomains canonicalizefallbacklocal canonicalizehostname canonicalizemaxdots
		canonicalizepermittedcnames casignaturealgorithms certificatefile channeltimeout checkhostip
		ciphers clearallforwardings compression connectionattempts connecttimeout controlmaster
		controlpath controlpersist dynamicforward enableescapecommandline enablesshkeysign escapechar
		exitonforwardfailure fingerprinthash forkafterauthentication forwardagent forwardx11
		forwardx11timeout forwardx11trusted gatewayports globalknownhostsfile gssapiauthentication
		gssapidelegatecredentials hashknownhosts hostbasedacceptedalgorithms hostbasedauthentication
		hostbasedkeytypes hostkeyalgorithms hostkeyalias identitiesonly identityagent ignoreunknown
		ipqos kbdinteractiveauthentication kbdinteractivedevices kexalgorithms loglevel logverbose
		localforward macs nohostauthenticationforlocalhost numberofpasswordprompts obscurekeystroketiming
		passwordauthentication permitlocalcommand permitremoteopen preferredauthentications
		proxyusefdpass pubkeyacceptedalgorithms pubkeyacceptedkeytypes pubkeyauthentication
		rekeylimit remoteforward requesttty requiredrsasize revokedhostkeys sendenv serveralivecountmax
		serveraliveinterval sessiontype setenv stdinnull streamlocalbindmask streamlocalbindunlink
		stricthostkeychecking syslogfacility tag tcpkeepalive tunnel tunneldevice updatehostkeys
		usekeychain userknownhostsfile verifyhostkeydns visualhostkey xauthlocation`) {
		ignoredKeys[k] = true
	}
}

// refusedKeys run a command or load code on this machine (or, for
// RemoteCommand, on the host in a way benchrig's argv steps never show).
var refusedKeys = map[string]string{
	"proxycommand":        "runs a command on this machine to connect; use ProxyJump",
	"localcommand":        "runs a command on this machine after connecting",
	"knownhostscommand":   "runs a command on this machine to list host keys",
	"pkcs11provider":      "loads a shared library into the ssh client",
	"securitykeyprovider": "loads a shared library into the ssh client",
	"remotecommand":       "runs a command on the host outside benchrig's steps",
}

// maxIncludeDepth is OpenSSH's READCONF_MAX_DEPTH; maxConfigFiles bounds
// what an Include glob may pull in.
const (
	maxIncludeDepth = 16
	maxConfigFiles  = 256
)

// ConfigProblem is one thing wrong in an ssh_config file, at its place.
type ConfigProblem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p ConfigProblem) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// ConfigError lists every problem of an ssh_config file benchrig refuses.
type ConfigError struct {
	Problems []ConfigProblem
}

func (e *ConfigError) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = "ssh config " + p.String()
	}
	return strings.Join(s, "; ")
}

// CheckSSHConfigFile reads path as a named ssh_config (a plan's
// ssh.config, --ssh-config) and returns a *ConfigError listing every
// directive benchrig refuses, or the *localfile.Error of a file that is
// not a bounded regular file. Nothing in it is executed.
func CheckSSHConfigFile(path string) error {
	_, err := readSSHConfig(path, !isDefaultSSHConfig(path))
	return err
}

// isDefaultSSHConfig says whether path is one of the operator's own
// default files (~/.ssh/config, /etc/ssh/ssh_config): named or not, they
// are read as when none is named (Include followed, Match skipped).
func isDefaultSSHConfig(path string) bool {
	path = filepath.Clean(path)
	if path == systemSSHConfig {
		return true
	}
	home, err := os.UserHomeDir()
	return err == nil && path == filepath.Join(home, ".ssh", "config")
}

// cfgEntry is one "Keyword arguments" line.
type cfgEntry struct {
	key       string // lower case
	name      string // as written
	args      []string
	file      string
	line, col int
}

func (e cfgEntry) at() string { return fmt.Sprintf("%s:%d:%d", e.file, e.line, e.col) }

// cfgBlock is the lines under one Host line (or before the first one,
// which apply to every host).
type cfgBlock struct {
	patterns []string // nil: every host
	entries  []cfgEntry
}

// matches reports whether alias matches the block's Host patterns as ssh
// does: some positive pattern matches and no negated one does.
func (b *cfgBlock) matches(alias string) bool {
	if b.patterns == nil {
		return true
	}
	alias = strings.ToLower(alias)
	ok := false
	for _, p := range b.patterns {
		if neg, found := strings.CutPrefix(p, "!"); found {
			if globMatch(strings.ToLower(neg), alias) {
				return false
			}
			continue
		}
		if globMatch(strings.ToLower(p), alias) {
			ok = true
		}
	}
	return ok
}

// globMatch is ssh's match_pattern: '*' any run, '?' any one character.
// Linear backtracking on the last '*': no exponential blow-up.
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// cfgReader parses one ssh_config file and what it includes.
type cfgReader struct {
	strict   bool // a named file: refuse Match, Include, unknown keywords
	blocks   []cfgBlock
	problems []ConfigProblem
	warnings []string
	files    int
}

func (r *cfgReader) problem(file string, line, col int, format string, args ...any) {
	r.problems = append(r.problems, ConfigProblem{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// readSSHConfig parses path. strict is for a file named by a plan or a
// flag; the operator's own default files (~/.ssh/config,
// /etc/ssh/ssh_config) may Include others and hold Match blocks, which
// are skipped with a warning.
func readSSHConfig(path string, strict bool) (*cfgReader, error) {
	r := &cfgReader{strict: strict}
	if err := r.file(path, nil, 0); err != nil {
		return nil, err
	}
	if len(r.problems) > 0 {
		return nil, &ConfigError{Problems: r.problems}
	}
	return r, nil
}

// file parses one file; patterns are those of the Host block an Include
// stood in (lines before the file's first Host line belong to it).
func (r *cfgReader) file(path string, patterns []string, depth int) error {
	if r.files++; r.files > maxConfigFiles {
		return fmt.Errorf("ssh config %s: more than %d files included", path, maxConfigFiles)
	}
	data, err := localfile.Read(path, localfile.MaxSSHConfig)
	if err != nil {
		return fmt.Errorf("ssh config %w", err)
	}
	return r.parse(path, data, patterns, depth)
}

// parse is file on content already read.
func (r *cfgReader) parse(path string, data []byte, patterns []string, depth int) error {
	if !utf8.Valid(data) {
		r.problem(path, 1, 1, "not UTF-8 text")
		return nil
	}
	// cur indexes r.blocks (which an Include may grow and move).
	r.blocks = append(r.blocks, cfgBlock{patterns: patterns})
	cur := len(r.blocks) - 1
	skipping := false // inside a Match block of a default file
	for n, text := range strings.Split(string(data), "\n") {
		line := n + 1
		text = strings.TrimSuffix(text, "\r")
		trimmed := strings.TrimLeft(text, " \t")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		col := utf8.RuneCountInString(text[:len(text)-len(trimmed)]) + 1
		key, rest := splitKeyword(trimmed)
		lkey := strings.ToLower(key)
		args, err := splitArgs(rest)
		if err != nil {
			r.problem(path, line, col, "%s: %v", key, err)
			continue
		}
		for _, a := range args {
			if strings.ContainsRune(a, 0) || strings.ContainsFunc(a, func(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }) {
				r.problem(path, line, col, "%s: control character in an argument", key)
			}
		}
		switch lkey {
		case "host":
			skipping = false
			if len(args) == 0 {
				r.problem(path, line, col, "Host: no pattern")
			}
			r.blocks = append(r.blocks, cfgBlock{patterns: args})
			cur = len(r.blocks) - 1
			continue
		case "match":
			if r.strict {
				r.problem(path, line, col, "Match %s: refused: benchrig does not evaluate Match (exec would run a command on this machine); use Host blocks", strings.Join(args, " "))
				continue
			}
			skipping = true
			r.warnings = append(r.warnings, fmt.Sprintf("ssh config %s:%d:%d: Match block not evaluated (benchrig runs no command from ssh_config); its settings are ignored", path, line, col))
			continue
		case "include":
			if r.strict {
				r.problem(path, line, col, "Include: refused in a named ssh config: it would read other files; put what they say in this file")
				continue
			}
			if skipping {
				continue
			}
			if depth+1 >= maxIncludeDepth {
				r.problem(path, line, col, "Include: nested more than %d deep", maxIncludeDepth)
				continue
			}
			for _, a := range args {
				if err := r.include(path, a, r.blocks[cur].patterns, depth+1); err != nil {
					return err
				}
			}
			// The included files' blocks come after this one; what
			// follows the Include line still belongs to this Host.
			r.blocks = append(r.blocks, cfgBlock{patterns: r.blocks[cur].patterns})
			cur = len(r.blocks) - 1
			continue
		}
		if skipping {
			continue
		}
		switch {
		case supportedKeys[lkey]:
			if len(args) != 1 && lkey != "identityfile" {
				r.problem(path, line, col, "%s: want one value, got %d", key, len(args))
				continue
			}
			if len(args) == 0 {
				r.problem(path, line, col, "%s: no value", key)
				continue
			}
		case refusedKeys[lkey] != "":
			if r.strict {
				r.problem(path, line, col, "%s: refused: it %s; benchrig runs no command from ssh_config", key, refusedKeys[lkey])
				continue
			}
			// A default file: refused only for the hosts it applies to
			// (see lookup).
		case ignoredKeys[lkey]:
		default:
			if r.strict {
				r.problem(path, line, col, "%s: unknown or unsupported keyword (benchrig reads Host, HostName, Port, User, IdentityFile and ProxyJump)", key)
			}
			continue
		}
		r.blocks[cur].entries = append(r.blocks[cur].entries, cfgEntry{key: lkey, name: key, args: args, file: path, line: line, col: col})
	}
	return nil
}

// include reads the files an Include argument names, in lexical order of
// each glob, as ssh does: relative paths are under ~/.ssh for the user's
// file and /etc/ssh for the system one.
func (r *cfgReader) include(from, arg string, patterns []string, depth int) error {
	home, _ := os.UserHomeDir()
	switch {
	case arg == "~" || strings.HasPrefix(arg, "~/"):
		arg = filepath.Join(home, strings.TrimPrefix(arg, "~"))
	case !filepath.IsAbs(arg):
		base := filepath.Join(home, ".ssh")
		if strings.HasPrefix(from, "/etc/ssh/") {
			base = "/etc/ssh"
		}
		arg = filepath.Join(base, arg)
	}
	matches, err := filepath.Glob(arg)
	if err != nil {
		return fmt.Errorf("ssh config %s: Include %q: %w", from, arg, err)
	}
	sort.Strings(matches)
	for _, m := range matches {
		if err := r.file(m, patterns, depth); err != nil {
			return err
		}
	}
	return nil
}

// splitKeyword splits "Keyword args", "Keyword=args" or "Keyword = args".
func splitKeyword(s string) (key, rest string) {
	i := strings.IndexAny(s, " \t=")
	if i < 0 {
		return s, ""
	}
	key, rest = s[:i], strings.TrimLeft(s[i:], " \t")
	if strings.HasPrefix(rest, "=") {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	return key, rest
}

// splitArgs splits arguments as ssh's argv_split: by blanks, with double
// or single quotes grouping and a backslash escaping a quote, a blank or
// a backslash; an unquoted '#' starting an argument ends the line.
func splitArgs(s string) ([]string, error) {
	var args []string
	var b strings.Builder
	in := false // inside an argument
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t'):
			if in {
				args = append(args, b.String())
				b.Reset()
				in = false
			}
		case quote == 0 && c == '#' && !in:
			return args, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte(`"'\ `, s[i+1]) >= 0 && (quote == 0 || s[i+1] == quote || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
			in = true
		case quote == 0 && (c == '"' || c == '\''):
			quote, in = c, true
		case quote != 0 && c == quote:
			quote = 0
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		args = append(args, b.String())
	}
	return args, nil
}
