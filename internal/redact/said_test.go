package redact

import (
	"strings"
	"testing"
)

// TestSaidPasswords holds each class of password said in a sentence or typed on a command line:
// the secret goes, what names it stays.
func TestSaidPasswords(t *testing.T) {
	tests := []struct {
		class, in, secret, keep string
	}{
		// The word for password in other languages, with a colon, a copula or nothing.
		{"ja", "NASのパスワード：Fuji!san2024", "Fuji!san2024", "NASのパスワード："},
		{"ja", "パスワードはKoi#nobori5です", "Koi#nobori5", "です"},
		{"ja", "暗証番号は Ab12cd34 です", "Ab12cd34", "暗証番号は"},
		{"ko", "비밀번호는 Kimchi#2024 입니다", "Kimchi#2024", "입니다"},
		{"ko", "암호: Bibim!bap77", "Bibim!bap77", "암호:"},
		{"de", "Das Kennwort lautet Brezel#Bayern9", "Brezel#Bayern9", "Das Kennwort lautet"},
		{"de", "Datenbankpasswort: Rhein!Main42", "Rhein!Main42", "Datenbankpasswort:"},
		{"fr", "Mot de passe : Eiffel#1889x", "Eiffel#1889x", "Mot de passe :"},
		{"fr", "le mot de passe de la box est Livebox-7Kq2", "Livebox-7Kq2", "est"},
		{"es", "la contraseña es Paella#Valencia3", "Paella#Valencia3", "la contraseña es"},
		{"es", "clave: Sevilla2024!", "Sevilla2024!", "clave:"},
		{"pt", "a senha é Feijoada@88", "Feijoada@88", "a senha é"},
		{"it", "la password è Vespa#Roma12", "Vespa#Roma12", "la password è"},
		{"ru", "пароль: Baikal_2024!", "Baikal_2024!", "пароль:"},
		{"ru", "ПАРОЛЬ — Neva#Piter5", "Neva#Piter5", "ПАРОЛЬ —"},
		{"nl", "het wachtwoord is Molen#Delft4", "Molen#Delft4", "het wachtwoord is"},
		{"pl", "Hasło: Wisla!Gdansk8", "Wisla!Gdansk8", "Hasło:"},
		{"tr", "şifresi Kapadokya#77", "Kapadokya#77", "şifresi"},
		{"vi", "mật khẩu là Hanoi#Pho99", "Hanoi#Pho99", "mật khẩu là"},
		{"id", "kata sandi: Bali#Ubud21", "Bali#Ubud21", "kata sandi:"},
		{"el", "ΚΩΔΙΚΟΣ: Olympos#2917", "Olympos#2917", "ΚΩΔΙΚΟΣ:"},
		{"quoted plain word", "Passwort: „sonnenblume“", "sonnenblume", "Passwort:"},
		{"in JSON arguments", `{"content":"DBのパスワードは Maguro#77 です","path":"notes.md"}`, "Maguro#77", `"path":"notes.md"`},
		{"password X in JSON arguments", `{"content":"log in as ops, password Ops!2024x","path":"notes.md"}`, "Ops!2024x", `"path":"notes.md"`},
		// A password with no = or :.
		{"password X", "log in as admin, password Zk8!wq3P", "Zk8!wq3P", "password "},
		{"password for X:", "password for the backup user: Bk#up2025x", "Bk#up2025x", "password for the backup user:"},
		{"my password is", "my password is Winter-Is-7 now", "Winter-Is-7", "my password is"},
		{"login -p", "oc login https://api.ocp.acme:6443 -u dev -p 'Open#Shift4'", "Open#Shift4", "-u dev -p"},
		{"-u … -p", "jfrog rt ping --url https://x.jfrog.io -u ci -p Art1f@ct", "Art1f@ct", "-u ci -p"},
		{"mysql glued", "mysql -uapp -pApp!2024 -h db", "App!2024", "-uapp -p"},
		{"nmcli", "nmcli dev wifi connect Cafe password 'Latte#Art42'", "Latte#Art42", "connect Cafe password"},
		{"7z glued", "7za x -pBackup#2024 archive.7z", "Backup#2024", "7za x -p"},
		{"zip -P", "unzip -P Zipp3r! docs.zip", "Zipp3r!", "unzip -P"},
		{"plink -pw", "pscp -pw Scp#Secret1 file admin@host:/tmp", "Scp#Secret1", "pscp -pw"},
		{"htpasswd", "htpasswd -nb admin Htp4ss!wd", "Htp4ss!wd", "htpasswd -nb admin"},
		{"sudo -S", "echo 'S3cure!Sudo' | sudo -S systemctl restart nginx", "S3cure!Sudo", "sudo -S"},
		{"smbclient user%pass", "smbclient -L nas -U backup%Smb!Pass9", "Smb!Pass9", "-U backup%"},
		// Chinese with a verb between the keyword and the value.
		{"密码改为", "密码改为 Gai#wei2024 了", "Gai#wei2024", "密码改为"},
		{"密码改成了", "数据库密码改成了Shu!ju99了", "Shu!ju99", "数据库密码改成了"},
		{"把密码设置成", "把路由器密码设置成 luyou2024ok", "luyou2024ok", "把路由器密码设置成"},
		{"口令是", "口令是Tian!wang8", "Tian!wang8", "口令是"},
		{"密碼 traditional", "新密碼改成 Xin#mi2025", "Xin#mi2025", "新密碼改成"},
		{"corner brackets", "密码更新为「Geng#xin7」", "Geng#xin7", "密码更新为「"},
		// *_PAT keys and personal access tokens.
		{"_PAT=", "export GITLAB_PAT=q8Wm2Zx7Lp4Rv9Tn3Ky5", "q8Wm2Zx7Lp4Rv9Tn3Ky5", "GITLAB_PAT="},
		{"pat:", "pat: m4x8q2wz7kp3vn9b", "m4x8q2wz7kp3vn9b", "pat:"},
		{"the PAT is", "the PAT is z7q2m9x4k8w3p6vb", "z7q2m9x4k8w3p6vb", "the PAT is"},
		{"personal access token X", "personal access token 6yq3m8zx2kw7p4vn9rtb5hcd for CI", "6yq3m8zx2kw7p4vn9rtb5hcd", "for CI"},
		// Go and Oracle DSNs.
		{"go dsn tcp", `sql.Open("mysql", "svc:Svc#Pw2024@tcp(10.1.2.3:3306)/app")`, "Svc#Pw2024", "svc:"},
		{"go dsn unix", "app:Unix!Sock7@unix(/tmp/mysql.sock)/app", "Unix!Sock7", "@unix("},
		{"go dsn @/", `dsn = "ro:R3ad!only@/stats"`, "R3ad!only", "@/stats"},
		{"oracle", "expdp hr/Hr#Export9@orclpdb directory=dp", "Hr#Export9", "expdp hr/"},
		// CLI logins that take a token as an argument.
		{"npm config set", "npm config set //npm.acme.dev/:_authToken Zp9Kq2Xm7Lw4Rv8Tn3", "Zp9Kq2Xm7Lw4Rv8Tn3", "_authToken "},
		{"yarn config set", "yarn config set npmAuthToken Kx4Rq8Zm2Wp7Lv3Tn9", "Kx4Rq8Zm2Wp7Lv3Tn9", "npmAuthToken "},
		{"cargo login", "cargo login cioZx8Qm2Lp7Wk4Rv9Tn3Yb6", "cioZx8Qm2Lp7Wk4Rv9Tn3Yb6", "cargo login "},
		{"ngrok", "ngrok authtoken 2aBcD3eFgH4iJkL5mNoP6qRsT7", "2aBcD3eFgH4iJkL5mNoP6qRsT7", "ngrok authtoken "},
		{"snyk auth", "snyk auth 9c2e4a6f-1b3d-4e5f-8a7b-0c9d8e7f6a5b", "9c2e4a6f-1b3d-4e5f-8a7b-0c9d8e7f6a5b", "snyk auth "},
		{"vercel -t", "vercel --prod -t Vq8Xm2Zk7Lp4Rw9Tn3Yb", "Vq8Xm2Zk7Lp4Rw9Tn3Yb", "-t "},
		{"netlify --auth", "netlify deploy --auth nfp_Xk8Qm2Zw7Lp4Rv9Tn3Yb6Hc1Jd5Fs", "nfp_Xk8Qm2Zw7Lp4Rv9Tn3Yb6Hc1Jd5Fs", "--auth "},
		{"nuget -k", "nuget push Acme.nupkg -k oy2zq8xm3kw7p4vn9rtb2hc5jd6fs1lgae0yu3ti7okbq", "oy2zq8xm3kw7p4vn9rtb2hc5jd6fs1lgae0yu3ti7okbq", "-k "},
		{"gh secret set", "gh secret set TOKEN -b 'Gh#Secret2024x'", "Gh#Secret2024x", "-b '"},
		{"heroku auth:token", "heroku auth:token\n1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "heroku auth:token"},
		{"heroku auth:token one line", "$ heroku auth:token › Warning: token will expire 01/02/2027 1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "Warning"},
		// What is public by design hides nothing beside it.
		{"token after a data URI", "![x](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)\nexport GITHUB_TOKEN=ghp_Zk8Qm2Xw7Lp4Rv9Tn3Yb6Hc1Jd5Fs8Gq2Wm7", "ghp_Zk8Qm2Xw7Lp4Rv9Tn3Yb6Hc1Jd5Fs8Gq2Wm7", "data:image/png;base64,iVBORw0KGgo"},
		{"secret key beside a publishable one", "STRIPE_PUBLISHABLE_KEY=pk_live_51Kx2Lm7Zq8Rw4Tn9Yb3Hc6Jd1Fs5Gq8Wm2Xz7Lp4Kv9Rt3Yn6Bc1Hd5Js8Fq2 STRIPE_SECRET_KEY=sk_live_51Kx2Lm7Zq8Rw4Tn9Yb3Hc6Jd1Fs5Gq8Wm2Xz7Lp4Kv9Rt3Yn6Bc1Hd5Js8Fq2", "sk_live_51Kx2Lm7Zq8Rw4Tn9Yb3Hc6Jd1Fs5Gq8Wm2Xz7Lp4Kv9Rt3Yn6Bc1Hd5Js8Fq2", "pk_live_51Kx2Lm7Zq8Rw4Tn9Yb3Hc6Jd1Fs5Gq8Wm2Xz7Lp4Kv9Rt3Yn6Bc1Hd5Js8Fq2"},
		// Braintree.
		{"braintree", "token access_token$sandbox$z9y8x7w6v5u4t3s2$0123456789abcdef0123456789abcdef", "access_token$sandbox$z9y8x7w6v5u4t3s2$0123456789abcdef0123456789abcdef", "token "},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			out := Text(tt.in)
			if strings.Contains(out, tt.secret) {
				t.Errorf("secret survived: %q", out)
			}
			if !strings.Contains(out, tt.keep) {
				t.Errorf("context %q lost: %q", tt.keep, out)
			}
		})
	}
}

// TestSaidPasswordLookAlikes holds what the said-password rules must leave alone.
func TestSaidPasswordLookAlikes(t *testing.T) {
	tests := []struct{ class, in string }{
		// Public by design.
		{"stripe publishable", "Stripe('pk_live_51Nq8Zx2Lm7Kp4Rw9Tn3Yb6Hc1Jd5Fs8Gq2Wm7Xz4Lp9Kv3Rt6Yn1Bc5Hd8Js2Fq7Wm4Zx9Lp3Kv6Rt1Yn8Bc4Hd')"},
		{"stripe publishable label", "Publishable key: pk_test_51Kx2Lm7Zq8Rw4Tn9Yb3Hc6Jd1Fs5Gq8Wm2Xz7Lp4Kv9Rt3Yn6Bc1Hd5Js8Fq2Wm7Zx4Lp9Kv3Rt6Yn1Bc5Hd8Js2"},
		{"clerk publishable", "VITE_CLERK_PUBLISHABLE_KEY=pk_test_Y2xlcmsuZXhhbXBsZS5jb20k"},
		{"data uri svg", `.logo{background:url("data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjgiLz48L3N2Zz4=")}`},
		{"data uri escaped json", `{"icon":"data:image\/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAM0lEQVR4nGNgGAWjYBSMglEwCkYBqYCRgYGB4T8DA8N\/BgYGBkYGBgYGhv8MDAwMDAwMDAAAlXQF8D\/2dKgAAAAASUVORK5CYII="}`},
		// Sentences about password rules.
		{"english rule", "password: must be at least 14 characters"},
		{"english rule capitalised", "Password: Minimum 12 characters, one symbol"},
		{"printed on", "the password is printed on the label"},
		{"chinese rule", "密码：至少 8 位，含大小写"},
		{"chinese length", "密码长度设为 16"},
		{"chinese at least", "密码设为至少 12 位"},
		{"german rule", "Passwort: mindestens 12 Zeichen"},
		{"german wrong", "Das Passwort ist falsch"},
		{"french forgot", "Mot de passe oublié ? Cliquez ici"},
		{"spanish key of success", "la clave del éxito es la constancia"},
		{"korean rule", "비밀번호: 8자 이상"},
		// Password words with no password after them.
		{"pass the argument", "pass the token2 argument"},
		{"1Password", "1Password stores Abc123!x"},
		{"passwd command", "passwd deploy2"},
		{"reset for an email", "reset password user2@example.com"},
		{"hash name", "hash the password sha256 then compare"},
		{"ssh port", "ssh -p 2222 deploy@host"},
		{"psql port", "psql -h db -U app -p 5432 orders"},
		{"mysql prompt", "mysql -u root -p shop"},
		{"login -p flag", "login -p -f root"},
		{"password column", "password varchar(255) NOT NULL"},
		{"chinese changed ok", "密码改成功了"},
		{"pat expiry", "PAT_EXPIRY_DAYS=90"},
		{"dsn placeholder", "user:password@tcp(host:3306)/dbname"},
		{"dsn without password", `sql.Open("mysql", "root@tcp(127.0.0.1:3306)/test")`},
		{"token variable", "vercel deploy --token $VERCEL_TOKEN"},
		{"npm token variable", "npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}"},
		{"braintree docs", "tokens look like access_token$production$<merchant_id>$<hex>"},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			if out := Text(tt.in); out != tt.in {
				t.Errorf("changed:\n  in:  %q\n  out: %q", tt.in, out)
			}
		})
	}
}
