package plan

import (
	"sort"
	"strings"

	"github.com/benchrig/benchrig/remote"
)

// A plan is data (a colleague's, a downloaded one). A database setting
// whose value is a command the server runs, a library it loads, a place
// on disk it reads code or configuration from or writes files to, or an
// address it sends data to, would make it code on every node. Such a
// setting is refused at its key unless the operator allows it for a run
// with --allow-setting NAME on the command line, never from the plan.
//
// The judgement is by rule, so that a server release that adds such a
// parameter is covered without a change here (PostgreSQL 15.20 added
// output_plugin_libraries to 15.x):
//
//   - by name, at validation: the last word of the name says what kind of
//     value it holds (settingKinds);
//   - by the server's own catalogue, where a server is there to ask: the
//     configure stage runs PostgresSettingsGuard on every node before it
//     applies anything, and the server refuses any of the plan's
//     parameters that its pg_settings row says names code or a place on
//     disk (PostgresCatalogueRefuses), whatever its name;
//   - by an explicit list only for what neither rule catches
//     (deniedSettings), each with why.

// settingKind is a kind of value, told by how a setting's name ends.
type settingKind struct {
	// suffix ends the last word of a name (the text after its last '_'
	// or '.'), so "file" covers ssl_key_file, krb_server_keyfile and any
	// later *_file; "dir" covers ssl_crl_dir and extension_destdir.
	suffix string
	why    string
}

// settingKinds are the kinds that make a value code, a place on disk or
// an address. A harmless name that happens to end so (search_path) is in
// harmlessSettings, with why.
var settingKinds = []settingKind{
	{"command", "its name says it holds a command the server runs"},
	{"commands", "its name says it holds commands the server runs"},
	{"library", "its name says it holds a library the server loads (code)"},
	{"libraries", "its name says it holds libraries the server loads (code)"},
	{"lib", "its name says it holds a library the server loads (code)"},
	{"libs", "its name says it holds libraries the server loads (code)"},
	{"module", "its name says it holds a module the server loads (code)"},
	{"modules", "its name says it holds modules the server loads (code)"},
	{"plugin", "its name says it holds a plugin the server loads (code)"},
	{"plugins", "its name says it holds plugins the server loads (code)"},
	{"provider", "its name says it holds a provider the server loads (code, as jit_provider)"},
	{"providers", "its name says it holds providers the server loads (code)"},
	{"program", "its name says it holds a program the server runs"},
	{"script", "its name says it holds a script the server runs"},
	{"path", "its name says it holds a path the server reads or loads from"},
	{"paths", "its name says it holds paths the server reads or loads from"},
	{"file", "its name says it holds a file the server reads or writes"},
	{"files", "its name says it holds files the server reads or writes"},
	{"filename", "its name says it holds a file name the server writes to"},
	{"filenames", "its name says it holds file names the server writes to"},
	{"dir", "its name says it holds a directory the server reads or writes"},
	{"dirs", "its name says it holds directories the server reads or writes"},
	{"directory", "its name says it holds a directory the server reads or writes"},
	{"directories", "its name says it holds directories the server reads or writes"},
	{"conninfo", "its name says it holds a connection string: an address the server connects to"},
	{"url", "its name says it holds an address the nodes send data to or fetch from"},
	{"urls", "its name says it holds addresses the nodes send data to or fetch from"},
	{"uri", "its name says it holds an address the nodes send data to or fetch from"},
	{"endpoint", "its name says it holds an address the nodes send data to"},
	{"endpoints", "its name says it holds addresses the nodes send data to"},
	{"collector", "its name says it holds an address the nodes send data to"},
	{"webhook", "its name says it holds an address the nodes send data to"},
	{"address", "its name says it holds an address the server uses (benchrig sets addresses from the plan's hosts)"},
	{"addresses", "its name says it holds addresses the server uses (benchrig sets addresses from the plan's hosts)"},
}

// harmlessSettings end like a kind of settingKinds, or are described so
// in the server's catalogue, but hold nothing of the kind.
var harmlessSettings = map[string]map[string]string{
	Postgres: {
		"search_path": "schemas, not files",
		// Caught only by the catalogue's wording ("Sets the tablespace(s)
		// to use for temporary tables and sort files."): a tablespace
		// must exist already, and CREATE TABLESPACE, which names its
		// directory, is a statement of its own no plan runs.
		"temp_tablespaces": "names tablespaces that exist; none names a directory",
		// "Selects a file of time zone abbreviations.": the server takes
		// a bare name of a file in its own share/timezonesets and
		// refuses anything but letters, digits, '.' and '_'.
		"timezone_abbreviations": "a bare name the server looks up in its own share directory",
	},
}

// deniedSetting is a setting no rule of settingKinds catches.
type deniedSetting struct {
	flavor string
	// name is the setting; a name ending in '.' covers every setting
	// under that prefix (cockroach's dotted names): a subsystem that
	// reaches out, whatever its settings are called.
	name string
	why  string
}

// deniedSettings is the explicit list: only what the rules miss.
var deniedSettings = []deniedSetting{
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
// "" when it may: the explicit list first, then the harmless names, then
// the rule by name.
func deniedWhy(flavor, name string) string {
	for _, d := range deniedSettings {
		if d.flavor != flavor {
			continue
		}
		if d.name == name || (strings.HasSuffix(d.name, ".") && strings.HasPrefix(name, d.name)) {
			return d.why
		}
	}
	if harmlessSettings[flavor][name] != "" {
		return ""
	}
	last := name[strings.LastIndexAny(name, "._")+1:]
	for _, k := range settingKinds {
		if strings.HasSuffix(last, k.suffix) {
			return k.why
		}
	}
	return ""
}

// PostgresCatalogueRefuses is the server's own judgement, a condition on
// a row of pg_catalog.pg_settings: a text parameter that the catalogue
// files under File Locations or Shared Library Preloading, or whose
// description says it names a command, a library, a module, a plugin, a
// provider, a path, a directory or a file. Whatever its name: a
// parameter a later release adds is judged by the release's own words.
// Harmless parameters the wording catches are left out (harmlessSettings).
func PostgresCatalogueRefuses() string {
	var harmless []string
	for name := range harmlessSettings[Postgres] {
		harmless = append(harmless, remote.SQLLiteral(name))
	}
	sort.Strings(harmless)
	return strings.Join([]string{
		"vartype = 'string'",
		"AND lower(name) NOT IN (" + strings.Join(harmless, ", ") + ")",
		"AND (category = 'File Locations'",
		"OR category LIKE '%Shared Library%'",
		`OR short_desc ~* '\m(commands?|librar(y|ies)|modules?|plugins?|providers?|paths?|director(y|ies)|files?)\M')`,
	}, " ")
}

// PostgresSettingsGuard is a statement that fails, naming each one, when
// the server's catalogue refuses any of names (PostgresCatalogueRefuses);
// the configure stage runs it on a node before its ALTER SYSTEMs, in the
// same psql that stops at the first error. names are setting names
// validation accepted (settingName: letters, digits, '_' and '.'), each
// written as an SQL literal all the same.
func PostgresSettingsGuard(names []string) string {
	lits := make([]string, len(names))
	for i, n := range names {
		lits[i] = remote.SQLLiteral(n)
	}
	// One line, so that the dry-run shows it as one argument.
	return strings.Join([]string{
		"DO $benchrig_guard$ DECLARE refused text; BEGIN",
		"SELECT string_agg(name || ' (' || category || ': ' || short_desc || ')', '; ' ORDER BY name) INTO refused",
		"FROM pg_catalog.pg_settings",
		"WHERE lower(name) = ANY (ARRAY[" + strings.Join(lits, ", ") + "]::text[])",
		"AND " + PostgresCatalogueRefuses() + ";",
		"IF refused IS NOT NULL THEN",
		"RAISE EXCEPTION 'benchrig: the server''s catalogue says these settings name code or a place on disk, so a plan may not set them (the operator may allow one with --allow-setting NAME): %', refused;",
		"END IF; END $benchrig_guard$",
	}, " ")
}

// Guarded lists the plan's settings the server is still to judge before
// they are applied (PostgresSettingsGuard): all but those the operator
// allowed on the command line.
func (s *Settings) Guarded() []string {
	var out []string
	for _, kv := range s.ordered {
		if !s.allowed[kv.Name] && !s.allowed[allowAll] {
			out = append(out, kv.Name)
		}
	}
	return out
}
