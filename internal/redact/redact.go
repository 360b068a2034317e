package redact

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Mask is what stands in for a secret.
const Mask = "****"

// passwordKeys are the connection parameters that hold a secret
// (libpq's and pgx's names).
var passwordKeys = map[string]bool{"password": true, "sslpassword": true}

// URL returns the connection string u with every password replaced by
// Mask. It takes the forms pgx takes: a URL ("postgres://user:pw@host1:1,
// host2:2/db?password=pw", percent-encoded or not, IPv6 and unix-socket
// hosts) or a keyword/value string ("host=h password='a b\'c'"). What it
// cannot parse it hides rather than risk showing a password.
func URL(u string) string {
	if i := strings.Index(u, "://"); i > 0 && isScheme(u[:i]) {
		return redactURL(u, i+3)
	}
	return redactKeywordValue(u)
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// redactURL masks the password of the user info and the password query
// parameters. The user info ends at the last '@' of the whole string: a
// password with an unescaped '/', '?' or '#' (which net/url and pgx refuse)
// is still hidden, at the cost of hiding more than needed in the rare URL
// with an '@' in its query.
func redactURL(u string, authority int) string {
	rest := u[authority:]
	var b strings.Builder
	b.WriteString(u[:authority])
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		userinfo := rest[:at]
		if strings.ContainsAny(userinfo, "/?#") {
			// The '@' is past the authority (in the path or query), or the
			// password has characters that end it: hide all of it.
			b.WriteString(Mask + "@")
			rest = rest[at+1:]
			b.WriteString(redactQuery(rest))
			return b.String()
		}
		user, _, hasPW := strings.Cut(userinfo, ":")
		b.WriteString(user)
		if hasPW {
			b.WriteString(":" + Mask)
		}
		b.WriteByte('@')
		rest = rest[at+1:]
	}
	b.WriteString(redactQuery(rest))
	return b.String()
}

// redactQuery masks the password parameters of the query of rest (host,
// path, ?query, #fragment), keeping everything else byte for byte.
func redactQuery(rest string) string {
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return rest
	}
	head, query := rest[:q+1], rest[q+1:]
	frag := ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			key = k
		}
		if ok && passwordKeys[strings.ToLower(strings.TrimSpace(key))] {
			parts[i] = k + "=" + Mask
		}
	}
	return head + strings.Join(parts, "&") + frag
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// redactKeywordValue masks password values of a libpq keyword/value
// string, scanning it as pgx does (values bare or single-quoted, with
// backslash escapes). An unparsable string is kept up to the password
// keyword whose value could not be delimited.
func redactKeywordValue(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			b.WriteString(s[i:])
			break
		}
		key := strings.Trim(s[i:i+eq], " \t\n\r\v\f")
		secret := passwordKeys[strings.ToLower(key)]
		b.WriteString(s[i : i+eq+1])
		i += eq + 1
		for i < len(s) && isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
		}
		if i == len(s) {
			break
		}
		start := i
		if s[i] != '\'' {
			for i < len(s) && !isSpace(s[i]) {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		} else {
			i++
			for i < len(s) && s[i] != '\'' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				// Unterminated: nothing after this point can be trusted.
				if secret || containsFold(s[start:], "password") {
					b.WriteString(Mask)
				} else {
					b.WriteString(s[start:])
				}
				return b.String()
			}
			i++ // the closing quote
		}
		if i > len(s) {
			i = len(s)
		}
		if secret {
			b.WriteString(Mask)
		} else {
			b.WriteString(s[start:i])
		}
	}
	return b.String()
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// Secrets returns text with every value replaced by Mask, in each form a
// program may print it: as given and, for a value handed over as an SQL
// string literal (quotes around it, each inner quote doubled), also the
// raw value; each of those shell-quoted, JSON-escaped and percent-encoded.
func Secrets(text string, values ...string) string {
	var forms []string
	for _, v := range values {
		forms = append(forms, variants(v)...)
	}
	// Longest first, so a form that contains another is replaced whole.
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	for _, f := range forms {
		if f != "" && f != Mask {
			text = strings.ReplaceAll(text, f, Mask)
		}
	}
	return text
}

func variants(v string) []string {
	if v == "" {
		return nil
	}
	bases := []string{v}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		inner := v[1 : len(v)-1]
		bases = append(bases, inner, strings.ReplaceAll(inner, "''", "'"))
	}
	var out []string
	for _, b := range bases {
		if b == "" {
			continue
		}
		q := strconv.Quote(b)
		out = append(out, b,
			"'"+strings.ReplaceAll(b, "'", `'\''`)+"'", // sh
			q[1:len(q)-1], // JSON, Go
			url.QueryEscape(b), url.PathEscape(b),
		)
	}
	return out
}
