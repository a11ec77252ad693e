package redact

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tyler-smith/go-bip39/wordlists"

	"github.com/somni-dev/somni/internal/testutil"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name string
		in   string
		gone []string // secrets that must not survive
		keep []string // context that must survive
	}{
		{"openai key", "export OPENAI_API_KEY=sk-proj-Abc123def456GHI789jkl012MNO345pqr", []string{"Abc123def456GHI789"}, []string{"export OPENAI_API_KEY="}},
		{"anthropic key", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 in config", []string{"AbCdEfGhIjKlMnOp"}, []string{"in config"}},
		{"aws", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", []string{"AKIAIOSFODNN7EXAMPLE"}, []string{"aws_access_key_id"}},
		{"github", "git clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/x/y", []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, []string{"github.com/x/y"}},
		{"slack", "SLACK_TOKEN xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", []string{"xoxb-123456789012"}, []string{"SLACK_TOKEN"}},
		{"bearer", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc' https://api", []string{"eyJhbGciOiJIUzI1NiJ9"}, []string{"Authorization: Bearer", "https://api"}},
		{"pem", "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----\nthanks", []string{"MIIEpAIBAAKCAQEA7"}, []string{"thanks", "BEGIN RSA PRIVATE KEY"}},
		{"pem cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", []string{"b3BlbnNzaC1rZXkt"}, nil},
		{"password=", "login with user=bob password=hunter2!x and go", []string{"hunter2"}, []string{"user=bob", "and go"}},
		{"json password", `{"username": "bob", "password": "s3cr3t value"}`, []string{"s3cr3t"}, []string{`"username": "bob"`}},
		{"token:", "token: 9f8e7d6c5b4a39281706", []string{"9f8e7d6c5b4a39281706"}, []string{"token:"}},
		{"url creds", "DATABASE_URL=postgres://admin:Pa55w0rd@db.internal:5432/app", []string{"Pa55w0rd"}, []string{"postgres://admin:", "@db.internal:5432/app"}},
		{"token as url user", "git remote set-url origin https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz0123456789@github.com/acme/api.git", []string{"ghs_abc"}, []string{"https://x-access-token:", "@github.com/acme/api.git"}},
		{"password with ampersand in prose", "The root password on staging is Tr0ub4dor&3", []string{"&3"}, []string{"The root password on staging is "}},
		{"chinese password", "服务器密码是 Abc!2345，别告诉别人", []string{"Abc!2345"}, []string{"服务器", "别告诉别人"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Text(tt.in)
			for _, g := range tt.gone {
				if strings.Contains(out, g) {
					t.Errorf("secret %q survived: %q", g, out)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(out, k) {
					t.Errorf("context %q lost: %q", k, out)
				}
			}
			if !strings.Contains(out, Marker) {
				t.Errorf("no redaction marker: %q", out)
			}
		})
	}
}

func TestRedactLeavesNormalTextAlone(t *testing.T) {
	texts := []string{
		"团队有五个人，刘超负责网关，下周二发布。",
		"The deploy failed with 503 no_available_workers; restart the pool.",
		"max_tokens=4096 and temperature 0.2",
		"Use the sk-learn style API? No, scikit-learn.",
		"see https://example.com/docs?page=2 for details",
		"I forgot my password yesterday, can you help me reset it?",
		"The key insight: basic things first.",
		"域名下周到期，记得提醒我续费",
		"call: exec-shell(\"npm run migrate\")",
		// Code, lock files and paths from this repository that earlier rules changed.
		"      key: 'data-dir',",
		`        "verdaccio-htpasswd": "13.1.3"`,
		"      '@deepseek-ai/dsh-credentials': ^0.1.0-rc.8",
		`	KeyLastUsed    = "last_used"`,
		"			Model: cfg.httpModel, APIKey: cfg.httpKey}, logger)",
		`exec node "$PLUGIN_DIR/test/e2e/demo.mjs"`,
		`  "memory/intentions/pi-20261129-001/INTENT.md": ` + "`---",
		"	u := Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}",
		"// \"密钥 rotation\" and \"令牌 bucket\" are prose.",
		// Feishu's ids of a user, a union, a chat and a message: what a chat platform names a
		// session's user with, never a credential.
		"user: feishu:ou_7d8a6e6b5c4d3e2f1a0b9c8d7e6f5a4b",
		"union on_0f1e2d3c4b5a69788796a5b4c3d2e1f0, chat oc_a1b2c3d4e5f60718293a4b5c6d7e8f90, message om_5f4e3d2c1b0a99887766554433221100",
	}
	for _, txt := range texts {
		if got := Text(txt); got != txt {
			t.Errorf("changed normal text:\n%q\n%q", txt, got)
		}
	}
}

func TestRedactCorpusSecrets(t *testing.T) {
	lines := testutil.SecretCorpus(t, "secrets.jsonl")
	for _, l := range lines {
		if !strings.Contains(l.Text, l.Secret) {
			t.Errorf("%s: corpus line does not contain its secret", l.Name)
		}
	}
	testutil.CheckLeaks(t, "Text", lines, func(l testutil.SecretLine) bool { return strings.Contains(Text(l.Text), l.Secret) })
}

func TestRedactCorpusOrdinary(t *testing.T) {
	lines := testutil.SecretCorpus(t, "ordinary.jsonl")
	total, changed := map[string]int{}, map[string]int{}
	for _, l := range lines {
		h := l.Half()
		total[h]++
		if out := Text(l.Text); out != l.Text {
			changed[h]++
			if h == testutil.Tuning {
				t.Logf("[%s] %s changed:\n  in:  %q\n  out: %q", h, l.Name, l.Text, out)
			}
		}
	}
	for _, h := range []string{testutil.Tuning, testutil.HeldOut} {
		t.Logf("ordinary %s: %d/%d changed", h, changed[h], total[h])
	}
	// One miss is tolerated because a detector that never errs this way would have to let real secrets through.
	if n := changed[testutil.Tuning] + changed[testutil.HeldOut]; n > 1 {
		t.Errorf("%d ordinary texts changed, want at most 1", n)
	}
}

func TestRedactProperties(t *testing.T) {
	var texts []string
	for _, f := range []string{"secrets.jsonl", "ordinary.jsonl"} {
		for _, l := range testutil.SecretCorpus(t, f) {
			texts = append(texts, l.Text)
		}
	}
	texts = append(texts, "", "password=", "密码是", "\xff\xfepassword=\xff", "token: "+Marker, "-----BEGIN PRIVATE KEY-----")
	for _, in := range texts {
		once := Text(in)
		if twice := Text(once); twice != once {
			t.Errorf("not idempotent:\n  once:  %q\n  twice: %q", once, twice)
		}
		if utf8.ValidString(in) && !utf8.ValidString(once) {
			t.Errorf("invalid UTF-8 from %q: %q", in, once)
		}
		// Every replacement swaps at least one byte for the fixed marker plus a separator.
		if len(once) > len(in)+len(Marker)+2 && len(once) > 2*len(in) {
			t.Errorf("output grew from %d to %d bytes: %q", len(in), len(once), once)
		}
	}
}

// TestRedactConcurrent checks that concurrent calls (the detector and the word list are built once
// and shared) give what one call alone gives.
func TestRedactConcurrent(t *testing.T) {
	lines := testutil.SecretCorpus(t, "secrets.jsonl")
	want := make([]string, len(lines))
	for i, l := range lines {
		want[i] = Text(l.Text)
	}
	done := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i, l := range lines {
				if Text(l.Text) != want[i] {
					done <- l.Name
					return
				}
			}
			done <- ""
		}()
	}
	for g := 0; g < 8; g++ {
		if name := <-done; name != "" {
			t.Errorf("concurrent Text differs on %s", name)
		}
	}
}

func BenchmarkRedactCorpus(b *testing.B) {
	for _, f := range []string{"ordinary.jsonl", "secrets.jsonl"} {
		lines := testutil.SecretCorpus(b, f)
		b.Run(strings.TrimSuffix(f, ".jsonl"), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = Text(lines[i%len(lines)].Text)
			}
		})
	}
}

func BenchmarkRedact(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"clean", "Could you check why the CI docker build fails with the BuildKit cache mount error again?"},
		{"secret", "export OPENAI_API_KEY=sk-proj-Abc123def456GHI789jkl012MNO345pqr and password=hunter2"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_ = Text(bc.text)
			}
		})
	}
}

// chatMessages are ordinary chat turns in the languages people write to an agent in, none holding a
// secret: what Text costs on most of what it reads.
var chatMessages = []string{
	"Could you check why the CI docker build fails with the BuildKit cache mount error again?",
	"The login page redirects twice after the password reset, can you look at the session cookie?",
	"帮我看一下为什么部署之后首页加载这么慢，昨天还好好的",
	"用户说忘记密码之后收不到验证码，看看邮件服务的日志",
	"Kannst du bitte prüfen, warum der Build seit gestern fehlschlägt? Das Passwort-Feld ist nicht betroffen.",
	"ログイン画面でパスワードを忘れた場合のリンクが表示されません",
	"Почему тесты падают только на CI, а локально всё проходит?",
	"refactor the config loader so that the path comes from the flag, not the env",
	"비밀번호 변경 화면에서 버튼이 두 번 눌리는 문제를 고쳐 주세요",
	"La page de connexion affiche une erreur quand le mot de passe contient un accent.",
	"run the migration on staging first, then tell me how long it took",
	"¿Puedes revisar por qué la API devuelve 500 cuando falta el token?",
}

// BenchmarkRedactChat is Text on ordinary chat, one message per iteration.
func BenchmarkRedactChat(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = Text(chatMessages[i%len(chatMessages)])
	}
}

// BenchmarkRedactLongLine is one line with many findings (minified JSON, escaped or not): the cost
// must grow with the line, not with findings × line (gitleaks checks allowlists per finding against
// the whole line; the detector reads the text in chunks).
func BenchmarkRedactLongLine(b *testing.B) {
	for name, unit := range map[string]string{
		"json":    `"token": "aB3dEfGh1JkLmN0pQrStU", `,
		"escaped": `\"token\": \"aB3dEfGh1JkLmN0pQrStU\", `,
		"tokens":  "aB3dEfGh1JkLmN0pQrStU:",
	} {
		text := strings.Repeat(unit, 1000)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_ = Text(text)
			}
		})
	}
}

// TestBIP39List holds the embedded word list to the one go-bip39 maintains.
func TestBIP39List(t *testing.T) {
	got := strings.Fields(bip39English)
	if !slices.Equal(got, wordlists.English) {
		t.Fatalf("bip39-english.txt: %d words, differs from go-bip39's %d", len(got), len(wordlists.English))
	}
}

// TestRuleTriggersMatchLowerContains holds the check that lets a text skip contextRules to the
// same answers: lower-case the text, search it for each of ruleTriggers.
func TestRuleTriggersMatchLowerContains(t *testing.T) {
	want := func(text string) bool {
		lower := strings.ToLower(text)
		for _, tr := range ruleTriggers {
			if strings.Contains(lower, tr) {
				return true
			}
		}
		return false
	}
	texts := []string{"", "plain words", "パスワード only", "Passwort-Feld", "mdp-pw x", "sandi-pw z", "SANDI", "senha dsn"}
	for _, f := range []string{"secrets.jsonl", "ordinary.jsonl"} {
		for _, l := range testutil.SecretCorpus(t, f) {
			texts = append(texts, l.Text, strings.ToUpper(l.Text))
		}
	}
	texts = append(texts, chatMessages...)
	for _, text := range texts {
		if got, _ := triggerKinds(text); got != want(text) {
			t.Errorf("%.80q: triggerKinds %v, lower+contains %v", text, got, want(text))
		}
	}
}

// TestTriggerFinderMatchesLowerContains holds the one-pass trigger check to
// what it replaced: lower-case the text, search it for each trigger.
func TestTriggerFinderMatchesLowerContains(t *testing.T) {
	want := func(text string) bool {
		lower := strings.ToLower(text)
		for _, tr := range contextTriggers {
			if strings.Contains(lower, tr) {
				return true
			}
		}
		return false
	}
	texts := []string{"", "plain words only", "PASSWORD", "Pa\u0073s", "my \u212aEY is", "LOG\u0130N now", "\u0130", "秘钥在这里",
		"ＰＡＳＳ full width", "x://y", "-U root", "MySQL", "ssh-KEYGEN", "sk-", ":AA", "令牌", "p", "pw", "Machine"}
	for _, f := range []string{"secrets.jsonl", "ordinary.jsonl"} {
		for _, l := range testutil.SecretCorpus(t, f) {
			texts = append(texts, l.Text, strings.ToUpper(l.Text))
		}
	}
	for _, tr := range contextTriggers {
		texts = append(texts, tr, strings.ToUpper(tr), "x"+tr[:len(tr)-1])
	}
	for _, text := range texts {
		if got := hasTrigger(text); got != want(text) {
			t.Errorf("%.80q: hasTrigger %v, lower+contains %v", text, got, want(text))
		}
	}
}
