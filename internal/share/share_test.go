package share

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/team"
)

// TestSecretKinds: a refusal names the field and the kind of secret in
// words, shows where only as redacted text, and never repeats the secret.
func TestSecretKinds(t *testing.T) {
	tests := []struct{ text, secret, kind string }{
		{"The staging db password is Xk9#mP2$vL7q, ask Ada.", "Xk9#mP2$vL7q", "a password"},
		{"密码是 Qw3rty!2024x", "Qw3rty!2024x", "a password"},
		{"mysql -u root -pHunter2Secret! db", "Hunter2Secret!", "a password"},
		{"token: ghp_8aB3kLmN0pQrS7tUvW1xYz2AbCdEfGhIjKlM", "ghp_8aB3kLmN0pQrS7tUvW1xYz2AbCdEfGhIjKlM", "an access token or API key"},
		{"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "an access token or API key"},
		{"clone https://ada:S3cr3tPassw0rd@git.example.com/repo.git", "S3cr3tPassw0rd", "a password in a URL"},
		{"card 4539 1488 0343 6467 exp 12/29", "4539 1488 0343 6467", "a payment card number"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA", "a private key"},
	}
	for _, tc := range tests {
		err := checkSecrets(field{"description", "fine"}, field{"body", tc.text})
		var r *Refusal
		if !errors.As(err, &r) {
			t.Errorf("%q: not refused (%v)", tc.text, err)
			continue
		}
		if r.Arg != "body" || !strings.Contains(r.Msg, "the body holds what looks like "+tc.kind+" (near ") || !strings.Contains(r.Msg, redact.Marker) {
			t.Errorf("%q: %+v, want the body and %q", tc.text, r, tc.kind)
		}
		if strings.Contains(r.Msg, tc.secret) {
			t.Errorf("%q: the refusal repeats the secret: %s", tc.text, r.Msg)
		}
	}
	if err := checkSecrets(field{"name", "staging-pg-port"}, field{"body", "Our staging Postgres listens on 6543; the password is in 1Password."}); err != nil {
		t.Errorf("a clean share refused: %v", err)
	}
	if err := checkSecrets(field{"name", "note-" + redact.Marker}); err == nil || !strings.Contains(err.Error(), "redacted earlier") {
		t.Errorf("a name holding the marker: %v", err)
	}
}

func TestPersonName(t *testing.T) {
	for in, want := range map[string]string{
		"Ada Lovelace":           "Ada Lovelace",
		"  Ada\n Lovelace ":      "Ada Lovelace",
		`CORP\ada`:               "ada",
		"ada@example.com":        "",
		"":                       "",
		strings.Repeat("a", 100): strings.Repeat("a", 64),
		"ghp_8aB3kLmN0pQrS7tUvW1xYz2AbCdEfGhIjKlM": "",
	} {
		if got := personName(in); got != want {
			t.Errorf("personName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGitEscape(t *testing.T) {
	if got := gitEscape("a b/[x]*?/#!\\/.somni.lock"); got != `a b/\[x\]\*\?/\#\!\\/.somni.lock` {
		t.Errorf("gitEscape: %s", got)
	}
}

// TestProposalIDs: an id is TEAM/NAME exactly as the proposal's file is
// named; anything that could leave the proposals folder is no id.
func TestProposalIDs(t *testing.T) {
	s := testShares(t, nil)
	for _, id := range []string{"backend/x", "b-2/默认端口", " backend/x "} {
		if _, _, err := s.parseID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"", "x", "/x", "backend/", "backend/../x", "../backend/x", "Backend/x", "backend/a b", "backend/.x", "backend/x/y"} {
		if _, _, err := s.parseID(id); err == nil {
			t.Errorf("%q accepted as an id", id)
		}
	}
}

func testShares(t *testing.T, pools []team.Pool) *Shares {
	t.Helper()
	cfg := memory.Config{Now: func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	pcfg := cfg
	cfg.DataDir = t.TempDir()
	st, err := memory.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ps []Pool
	for _, p := range pools {
		pst, err := p.Open(pcfg)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, Pool{Pool: p, Store: pst})
	}
	sh := New(st, ps)
	sh.Who = func(team.Pool) string { return "Ada" }
	return sh
}

// TestProposeApproveReject: the machinery without the binary — a
// proposal, its listing, an approval with an edited description into a
// folder outside git (no exclude to write), a rejection, and the limit.
func TestProposeApproveReject(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "pool")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s := testShares(t, []team.Pool{{Name: "backend", Root: root}})
	in := Input{Team: "backend", Name: "Staging PG port", Description: "Our staging Postgres port", Body: "6543"}
	p, err := s.Propose(ctx, in)
	if err != nil || p.ID != "backend/Staging-PG-port" || p.Type != "fact" || p.Proposed != "2026-12-02T12:00:00" {
		t.Fatalf("propose: %+v %v", p, err)
	}
	if _, err := s.Propose(ctx, in); err == nil || !strings.Contains(err.Error(), "already waits") {
		t.Errorf("the same proposal twice: %v", err)
	}
	all, err := s.List(ctx)
	if err != nil || len(all) != 1 || all[0].Name != "Staging PG port" || all[0].Body != "6543\n" || all[0].When() != "2026-12-02 12:00" {
		t.Fatalf("list: %+v %v", all, err)
	}
	done, err := s.Approve(ctx, p.ID, Edit{Description: "The staging Postgres listens on 6543"})
	if err != nil || done.Rel() != "knowledge/Staging-PG-port/SKILL.md" || done.SharedBy != "Ada" || !strings.Contains(done.Next(), "commit with your code") {
		t.Fatalf("approve: %+v %v", done, err)
	}
	raw, _ := os.ReadFile(done.Path)
	for _, want := range []string{"name: Staging PG port\n", "description: The staging Postgres listens on 6543\n", "shared_by: Ada\n", "shared: 2026-12-02\n", "created: 2026-12-02\n"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the entry lacks %q:\n%s", want, raw)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf("a .gitignore was written into the pool: %v", err)
	}
	q, _ := s.Propose(ctx, Input{Team: "backend", Name: "other", Description: "d", Body: "b"})
	if _, err := s.Reject(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.st.MemoryDir(), Dir)); !os.IsNotExist(err) {
		t.Errorf("reject left the proposals folder: %v", err)
	}
	for i := range MaxProposals {
		if _, err := s.Propose(ctx, Input{Team: "backend", Name: "n" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Description: "distinct description number " + strings.Repeat("y", i), Body: "b"}); err != nil {
			t.Fatalf("proposal %d: %v", i, err)
		}
	}
	if _, err := s.Propose(ctx, Input{Team: "backend", Name: "one-too-many", Description: "d", Body: "b"}); err == nil || !strings.Contains(err.Error(), "proposals already wait") {
		t.Errorf("proposal past the limit: %v", err)
	}
}
