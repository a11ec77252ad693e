package memory

import (
	"strings"
	"testing"
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
		{"chinese password", "服务器密码是 Abc!2345，别告诉别人", []string{"Abc!2345"}, []string{"服务器", "别告诉别人"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Redact(tt.in)
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
			if !strings.Contains(out, Redacted) {
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
	}
	for _, txt := range texts {
		if got := Redact(txt); got != txt {
			t.Errorf("changed normal text:\n%q\n%q", txt, got)
		}
	}
}
