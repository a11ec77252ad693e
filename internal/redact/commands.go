package redact

import "regexp"

// Credentials typed on a command line: a flag that means "password" or "token" only for some
// commands (-p is a port for psql and ssh, parents for mkdir), a password glued to its flag, or an
// argument whose position is the secret (cargo login X). Each rule names its commands; the value
// after a command is never a flag (-…), a variable or a prompt.

// argValue is a command argument: quoted, or a bare word that is not a flag.
const argValue = `(?:"(?P<v>[^"\n]+)"|'(?P<v>[^'\n]+)'|(?P<v>[^\s"'` + "`" + `;&|<>()\-][^\s"'` + "`" + `;&|<>()]*))`

// rest is the rest of one shell command: it stops at a pipe, a list or a line end.
const rest = `[^\n|;&]*?`

func commandRules() []contextRule {
	return []contextRule{
		// "cf login -p", "az login -p quoted", "expo login": any tool's login subcommand takes -p/-P as its
		// password; /bin/login's own -p is followed by a flag or a user, which argValue or the class refuse.
		{re: regexp.MustCompile(`\blogin\b` + rest + `\s(?:-p|-P|--pass|--passwd)(?:\s+|=)` + argValue), class: classShaped, need: []string{" -p", "--pass"}},
		// "jfrog -p quoted": -p after a user flag in the same command. A port (psql -U app -p 5432) or a
		// database (mysql -u root -p shop) has no shape of a password.
		{re: regexp.MustCompile(`\s(?:-u|-U|--user|--username)(?:\s+|=)\S+` + rest + `\s-p(?:\s+|=)` + argValue), class: classShaped, need: []string{" -p", "\t-p"}},
		// "7z -p glued", "mysql -uroot -pX": archivers and MySQL clients take the password glued to -p.
		{re: regexp.MustCompile(`\b(?:7z|7za|7zz|7zr|rar|unrar)\b` + rest + `\s-p(?:'(?P<v>[^'\n]+)'|"(?P<v>[^"\n]+)"|(?P<v>[^\s'"-]\S*))`), class: classAny, need: []string{"7z", "rar "}},
		// "zip -P": zip, unzip and zipcloak's -P is the password.
		{re: regexp.MustCompile(`\b(?:zip|unzip|zipcloak)\b` + rest + `\s-P\s+` + argValue), class: classPassword, need: []string{"zip -p"}},
		// "plink -pw": PuTTY's command-line tools.
		{re: regexp.MustCompile(`\b(?:plink|pscp|psftp|putty)\b` + rest + `\s-pw\s+` + argValue), class: classAny, need: []string{"-pw "}},
		// "xfreerdp /p:", rdesktop -p.
		{re: regexp.MustCompile(`(?i)\b(?:[a-z]*freerdp|mstsc)\b` + rest + `\s/p:(?:"(?P<v>[^"\n]+)"|'(?P<v>[^'\n]+)'|(?P<v>\S+))`), class: classAny, need: []string{"/p:"}},
		{re: regexp.MustCompile(`\brdesktop\b` + rest + `\s-p\s+` + argValue), class: classPassword, need: []string{"rdesktop"}},
		// "smbclient -U user%pass": Samba's user%password.
		{re: regexp.MustCompile(`\s(?:-U|--user)(?:\s+|=)["']?[^\s%'"]+%(?P<v>[^\s'"]+)`), class: classAny, need: []string{"-u"}},
		// "htpasswd -b": the password is the last argument (after the file unless -n).
		{re: regexp.MustCompile(`\bhtpasswd\s+-[a-zA-Z]*b[a-zA-Z]*\s+(?:\S+\s+)?\S+\s+` + argValue), class: classAny, need: []string{"htpasswd"}},
		// "bw unlock", bw login EMAIL PASSWORD.
		{re: regexp.MustCompile(`\bbw\s+(?:unlock|login\s+\S+)\s+` + argValue), class: classPassword, need: []string{"bw unlock", "bw login"}},
		// "rabbitmqctl change_password", add_user USER PASSWORD.
		{re: regexp.MustCompile(`\brabbitmqctl\s+(?:add_user|change_password|authenticate_user)\s+\S+\s+` + argValue), class: classAny, need: []string{"rabbitmqctl"}},
		// "net user add": net user NAME PASSWORD; * asks, /add is an option.
		{re: regexp.MustCompile(`(?i)\bnet\s+user\s+\S+\s+(?:"(?P<v>[^"\n]+)"|(?P<v>[^\s"/*][^\s"]*))`), class: classPassword, need: []string{"net user"}},
		// "chpasswd": user:password piped to chpasswd.
		{re: regexp.MustCompile(`\becho\s+(?:-e\s+)?["']?[^\s:'"]+:(?P<v>[^\s'"]+)["']?\s*\|\s*(?:sudo\s+)?chpasswd`), class: classAny, need: []string{"chpasswd"}},
		// "echo into sudo -S": a password piped to sudo -S.
		{re: regexp.MustCompile(`\becho\s+` + argValue + `\s*\|\s*sudo\s+-S\b`), class: classPassword, need: []string{"sudo -s"}},
		// "wpa_passphrase": SSID then passphrase.
		{re: regexp.MustCompile(`\bwpa_passphrase\s+(?:"[^"\n]*"|'[^'\n]*'|\S+)\s+` + argValue), class: classAny, need: []string{"wpa_passphrase"}},
		// "poetry http-basic": poetry config http-basic.REPO USER PASSWORD.
		{re: regexp.MustCompile(`\bpoetry\s+config\s+http-basic\.\S+\s+\S+\s+` + argValue), class: classAny, need: []string{"http-basic"}},
		// "npm config set authToken", "yarn npmAuthToken": a config key that names a secret, then its value
		// after a blank.
		{re: regexp.MustCompile(`\b(?:npm|pnpm|yarn|poetry|git|doppler|heroku|gh)\s+config(?:ure)?\s+(?:set\s+)?(?:--?[\w-]+\s+)*(?P<k>[^\s=]+)\s+` + argValue), classOf: classOfKey, need: []string{"config"}},
		// "cargo login positional", "ngrok add-authtoken", "vault login legacy token", "snyk auth uuid":
		// the token is the argument.
		{re: regexp.MustCompile(`\b(?:cargo\s+login|ngrok\s+(?:config\s+add-authtoken|authtoken)|vault\s+login|snyk\s+auth)\s+(?:--?[\w-]+\s+)*?` + argValue), class: classToken, need: []string{"cargo login", "vault login", "ngrok", "snyk auth"}},
		// "heroku auth token output": the token is printed after the command, a warning between; the
		// lines may have been joined into one (an intention's cue is one line).
		{re: regexp.MustCompile(`\bauth:token\b(?s:.{0,240}?)(?P<v>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|HRKU-[A-Za-z0-9_\-]{20,})`), class: classAny, need: []string{"auth:token"}},
		// "vercel -t", "codecov -t", "dotnet nuget push -k", "gh secret set --body": short flags that carry a
		// token for these commands only.
		{re: regexp.MustCompile(`\b(?:vercel|codecov|doctl)\b` + rest + `\s-t(?:\s+|=)` + argValue), class: classToken, need: []string{"vercel", "codecov", "doctl"}},
		{re: regexp.MustCompile(`(?i)\bnuget\b` + rest + `\s(?:-k|-apikey|setapikey)\s+` + argValue), class: classToken, need: []string{"nuget"}},
		{re: regexp.MustCompile(`\bgh\s+secret\s+set\b` + rest + `\s(?:-b|--body)(?:\s+|=)` + argValue), class: classPassword, need: []string{"secret"}},
		// "go dsn sql.Open", "gorm dsn": Go's MySQL DSN user:password@protocol(address)/db or user:password@/db.
		{re: regexp.MustCompile(`(?:^|[\s"'` + "`" + `=(,])[A-Za-z0-9_.\-]+:(?P<v>[^\s@"'` + "`" + `/]+)@(?:(?:tcp6?|udp|unix|pipe|memory|cloudsql[\w-]*)\(|/)`), class: classPassword, need: []string{"@tcp(", "@tcp6(", "@udp(", "@unix(", "@pipe(", "@memory(", "@cloudsql", "@/"}},
		// "oracle sqlplus": user/password@connect.
		{re: regexp.MustCompile(`(?i)\b(?:sqlplus|expdp|impdp|sqlldr|dgmgrl)\s+(?:-\S+\s+)*["']?[A-Za-z0-9_$#]+/(?P<v>[^\s@/"']+)@`), class: classAny, need: []string{"sqlplus", "expdp", "impdp", "sqlldr", "dgmgrl"}},
		// "braintree token bare": access_token$<environment>$<merchant id>$<32 hex>, taken whole.
		{re: regexp.MustCompile(`\b(?P<v>access_token\$(?:production|sandbox|development|qa)\$[0-9a-z]{16}\$[0-9a-f]{32})\b`), class: classAny, need: []string{"access_token$"}},
	}
}
