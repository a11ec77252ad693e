package gitsync

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// RemoteURL is the URL of the remote sync uses, credentials left out (see
// shownRemote), read from the repository's config file rather than by
// running git: the Memory tab's Health view and ping answer at once
// whatever the network or a running round does. "" when it cannot be read.
func RemoteURL(dataDir string) string {
	data, err := os.ReadFile(filepath.Join(dataDir, ".git", "config"))
	if err != nil {
		return ""
	}
	inOrigin := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section := strings.Join(strings.Fields(strings.Trim(line, "[]")), " ")
			inOrigin = strings.EqualFold(section, `remote "`+remoteName+`"`)
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if inOrigin && ok && strings.EqualFold(strings.TrimSpace(key), "url") {
			return shownRemote(configValue(strings.TrimSpace(value)))
		}
	}
	return ""
}

// configValue reads a value as git config writes it: backslash escapes
// (a Windows path's \\), "…" quoting (a value with a space at either end
// or a comment character), and a comment after it.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(unescape(v[i]))
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// unescape is the byte git config's escape \c stands for.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	}
	return c
}

// shownRemote is a remote's URL as somni shows and logs it: a password,
// and over http(s) a token given as the user name, left out, so that no
// report, status line, log record or screenshot carries a credential.
// ssh's user (git@) stays. git itself is always given origin by name.
func shownRemote(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.User == nil || u.Host == "" {
		return remote // a path, scp-like git@host:path, or nothing to leave out
	}
	_, hasPassword := u.User.Password()
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		u.User = nil
	case hasPassword:
		u.User = url.User(u.User.Username())
	default:
		return remote
	}
	return u.String()
}
