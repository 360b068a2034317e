package plan

import (
	"sort"
	"strings"
)

// deniedSetting is a database setting a plan may not set: its value is a
// command the server runs, a library it loads, a place it reads code or
// writes files, or an address it sends data to or fetches from. A plan is
// data (a colleague's, a downloaded one); through these settings it would
// become code on every node. The operator allows one for a run with
// --allow-setting NAME on the command line, never from the plan.
type deniedSetting struct {
	flavor string
	// name is the setting; a name ending in '.' covers every setting
	// under that prefix (cockroach's dotted names).
	name string
	why  string
}

// deniedSettings is the one list. The PostgreSQL rows cover every
// parameter of PostgreSQL 15 whose name ends in _command, _library,
// _libraries or _path and is more than a schema search path
// (TestDeniedSettingsCoverPostgres reads them from the real server).
var deniedSettings = []deniedSetting{
	{Postgres, "archive_command", "a shell command the server runs for every WAL segment"},
	{Postgres, "archive_cleanup_command", "a shell command the server runs at every restartpoint"},
	{Postgres, "restore_command", "a shell command the server runs to fetch WAL"},
	{Postgres, "recovery_end_command", "a shell command the server runs when recovery ends"},
	{Postgres, "ssl_passphrase_command", "a shell command the server runs to read the key's passphrase"},
	{Postgres, "archive_library", "a shared library the archiver loads (code)"},
	{Postgres, "shared_preload_libraries", "shared libraries the postmaster loads (code)"},
	{Postgres, "local_preload_libraries", "shared libraries every session loads (code)"},
	{Postgres, "session_preload_libraries", "shared libraries every session loads (code)"},
	{Postgres, "dynamic_library_path", "where LOAD and CREATE FUNCTION look for libraries (code from any directory)"},
	{Postgres, "extension_destdir", "where CREATE EXTENSION looks for extensions (code from any directory)"},
	{Postgres, "jit_provider", "the library the server loads for JIT compilation (code)"},
	{Postgres, "data_directory", "moves the cluster's data to any path"},
	{Postgres, "config_file", "reads the configuration from any file"},
	{Postgres, "hba_file", "reads client authentication rules from any file (e.g. trust for everyone)"},
	{Postgres, "ident_file", "reads user name maps from any file"},
	{Postgres, "external_pid_file", "writes a file at any path"},
	{Postgres, "log_directory", "writes server logs (with text a client controls) into any directory"},
	{Postgres, "log_filename", "writes server logs under any file name, e.g. a shell startup file"},
	{Postgres, "unix_socket_directories", "creates sockets in any directory"},

	{Cockroach, "enterprise.license", "the licence comes from license.key (env or file), never from the plan's text"},
	{Cockroach, "server.host_based_authentication.configuration", "client authentication rules (e.g. trust for everyone)"},
	{Cockroach, "server.identity_map.configuration", "maps external identities to SQL users"},
	{Cockroach, "server.oidc_authentication.", "the nodes fetch from the provider URL and trust it for logins"},
	{Cockroach, "server.jwt_authentication.", "the nodes fetch keys from issuers' URLs and trust them for logins"},
	{Cockroach, "server.ldap_authentication.", "the nodes contact an LDAP server and trust it for logins"},
	{Cockroach, "external.graphite.", "the nodes send their metrics to any address"},
	{Cockroach, "trace.opentelemetry.", "the nodes send traces (with SQL statements) to any collector"},
	{Cockroach, "trace.jaeger.", "the nodes send traces (with SQL statements) to any agent"},
	{Cockroach, "trace.zipkin.", "the nodes send traces (with SQL statements) to any collector"},
	{Cockroach, "cloudstorage.", "credentials and trusted CAs for the URLs the nodes read and write"},
}

// deniedWhy says why flavor's setting name may not come from a plan, or
// "" when it may.
func deniedWhy(flavor, name string) string {
	for _, d := range deniedSettings {
		if d.flavor != flavor {
			continue
		}
		if d.name == name || (strings.HasSuffix(d.name, ".") && strings.HasPrefix(name, d.name)) {
			return d.why
		}
	}
	return ""
}

// DeniedSettings lists the denied names of a flavor (prefixes end in '.'),
// sorted, with why: for --help and the README's threat model.
func DeniedSettings(flavor string) [][2]string {
	var out [][2]string
	for _, d := range deniedSettings {
		if d.flavor == flavor {
			out = append(out, [2]string{d.name, d.why})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
