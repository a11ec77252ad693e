package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// The secrets of the side-door tables: each one a single case's, so a leak
// names the shape and channel it came through. The key-only ones are caught
// only with their key in view (alone they read as ordinary words).
const (
	sideCommentKey   = "Xk4rTnZ8pLq2Wv9yB6mC1dFh3jS5gA7eR0uI8oPw" // after `# aws_secret_access_key:`
	sideInlinePass   = "Hunter2-Staging-42"                       // after `# db password=`
	sidePassword     = "Pw-Tab-Only-9931"                         // password:
	sideDBPassword   = "Pg-Prod-Secret-7731"                      // db_password:
	sideAPIToken     = "tok-staging-2024-blue"                    // api_token:
	sideDiaryComment = "Dq7uYnB3kWz9Lp2Rv5Tx8Hm1Cf4Gj6Ns0Ae3Kd7Q"
	sideDiaryInline  = "Hunter2-Diary-43"
	sideDiaryKey     = "Pw-Diary-Only-5517"
	sideNameToken    = "npm_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6" // named after by create_knowledge
	sideSkillToken   = "ghp_Sk1lLn4mE7tOk3nZ9xQ2wR5tY8uI0oP6aS4d"
	sideSourceToken  = "glpat-Ep1sOd3eS0urCe7xYz9Q"
	sideUserKey      = "ghp_Us3rK3yL1v3aB9cD2eF5gH8jK1mN4pQ7rS0t"
	sideEntryPass    = "Hunter2-Entry-44"
	sideSessionID    = "ghp_S3ss10nIdX4yZ7bC0eF3hJ6kL9mN2pQ5rS8tU"
	sideUserID       = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	sideChatType     = "glpat-Ch4tTyp3Ab3dE6gH9jK2"
	sideToolSession  = "ghp_T00lS3ss10nAb3dE6gH9jK2mN5pQ8sT1vW4y"
	sideToolUser     = "xoxb-9876543210-9876543210987-ZyXwVuTsRqPoNmLkJiHgFeDc"
	sideIntentPass   = "Pw-Intent-Only-2208"
)

// TestSecretsSideDoors sends secrets through the doors TestSecretsNeverReachDisk
// does not try: front-matter a person saves in the Memory tab (memory.write)
// or the dreamer writes in its diary, with the secret in a comment line, in a
// comment after a value, or in a value only its key marks as one; and names
// and ids that become paths or header ids (an entry, skill or episode named
// after a token, a user id that is a live key, a session, user or chat type
// that is one, a tool call's session). Every byte under the data dir, file and
// folder names and index.sqlite included, is then searched for each secret.
func TestSecretsSideDoors(t *testing.T) {
	const entry = "memory/knowledge/staging-db/SKILL.md"
	edit := func(header string) func(t *testing.T, s *proc) {
		return func(t *testing.T, s *proc) {
			var doc struct{ Raw, Version string }
			s.call("memory.read", map[string]any{"path": entry}, &doc)
			raw := "---\nname: staging-db\n" + header + "\n---\n\nThe staging database runs on db-stg-1.\n"
			var res struct{ Redacted int }
			s.call("memory.write", map[string]any{"path": entry, "raw": raw, "version": doc.Version}, &res)
			if res.Redacted < 1 {
				t.Errorf("memory.write reported %d secrets redacted", res.Redacted)
			}
		}
	}
	for _, tc := range []struct {
		channel, shape string
		secrets        []string
		feed           func(t *testing.T, s *proc)
	}{
		{"memory.write", "comment line", []string{sideCommentKey},
			edit("description: the staging database\n# aws_secret_access_key: " + sideCommentKey)},
		{"memory.write", "comment after a value", []string{sideInlinePass},
			edit("description: staging db # db password=" + sideInlinePass)},
		{"memory.write", "password key", []string{sidePassword},
			edit("description: the staging database\npassword: " + sidePassword)},
		{"memory.write", "db_password key", []string{sideDBPassword},
			edit("description: the staging database\ndb_password: " + sideDBPassword)},
		{"memory.write", "api_token key", []string{sideAPIToken},
			edit("description: the staging database\napi_token: " + sideAPIToken)},
		{"dream", "diary front-matter", []string{sideDiaryComment, sideDiaryInline, sideDiaryKey},
			func(t *testing.T, s *proc) {
				dreamWith(t, s, "---\ntrigger: test\n# aws_secret_access_key: "+sideDiaryComment+
					"\nnote: staging # db password="+sideDiaryInline+"\npassword: "+sideDiaryKey+"\n---\n\nA quiet night.\n")
			}},
		{"dream", "entry description with a comment", []string{sideEntryPass},
			func(t *testing.T, s *proc) {
				dreamWith(t, s, "", dreamtest.Call{Name: "create_knowledge", Args: map[string]any{
					"name": "staging-db-login", "entry_type": "fact",
					"description": "staging db # db password=" + sideEntryPass, "body": "How to log in to the staging db."}})
			}},
		{"dream", "create_knowledge name", []string{sideNameToken}, func(t *testing.T, s *proc) {
			replies := dreamWith(t, s, "", dreamtest.Call{Name: "create_knowledge", Args: map[string]any{
				"name": "deploy-" + sideNameToken, "entry_type": "fact",
				"description": "how the deploy publishes packages", "body": "The deploy publishes with the npm token."}})
			mustRefuse(t, replies, "deploy-")
		}},
		{"dream", "create_skill name", []string{sideSkillToken}, func(t *testing.T, s *proc) {
			dreamWith(t, s, "", dreamtest.Call{Name: "create_skill", Args: map[string]any{
				"name": sideSkillToken + "-clone", "description": "cloning the private repository",
				"body": "1. git clone with the token.\n"}})
		}},
		{"dream", "record_episode source", []string{sideSourceToken}, func(t *testing.T, s *proc) {
			dreamWith(t, s, "", dreamtest.Call{Name: "record_episode", Args: map[string]any{
				"what": "the user rotated a gitlab token", "outcome": "success", "source": sideSourceToken}})
		}},
		{"dream", "update_about_user user id", []string{sideUserKey}, func(t *testing.T, s *proc) {
			replies := dreamWith(t, s, "", dreamtest.Call{Name: "update_about_user", Args: map[string]any{
				"user_id": sideUserKey, "content": "Prefers short answers."}})
			mustRefuse(t, replies, "user")
		}},
		{"session.append", "session id, user id and chat type", []string{sideSessionID, sideUserID, sideChatType},
			func(t *testing.T, s *proc) {
				s.call("session.append", map[string]any{"sessionId": sideSessionID, "userId": sideUserID, "chatType": sideChatType,
					"role": "user", "text": "deploy the staging stack"}, nil)
				s.call("session.close", map[string]any{"sessionId": sideSessionID}, nil)
			}},
		{"add_intention", "tool call session and user, secret in the text", []string{sideToolSession, sideToolUser, sideIntentPass},
			func(t *testing.T, s *proc) {
				s.tool("add_intention", map[string]any{"what": "rotate the staging password: " + sideIntentPass,
					"cue": "staging password", "source": "password: " + sideIntentPass},
					"sessionId", sideToolSession, "userId", sideToolUser)
			}},
	} {
		t.Run(tc.channel+"/"+tc.shape, func(t *testing.T) {
			dir := t.TempDir()
			seedEntry(t, dir, entry, "---\nname: staging-db\ndescription: the staging database\ntype: fact\n---\n\nThe staging database runs on db-stg-1.\n")
			s := start(t, dir, nil)
			tc.feed(t, s)
			s.call("session.closeAll", nil, nil)
			s.call("index.sync", map[string]any{}, nil)
			s.call("shutdown", nil, nil)
			s.waitExit()
			if len(dirBytes(t, dir, "index.sqlite")) == 0 {
				t.Error("no index.sqlite to search")
			}
			for _, secret := range tc.secrets {
				for _, where := range findUnder(t, dir, secret) {
					t.Errorf("%s, %s: %s", tc.channel, tc.shape, where)
				}
			}
		})
	}
}

// TestSecretsSideDoorLookAlikes: what only looks like the side doors' secrets
// lands exactly as written — a hand edit with comment lines, a password
// policy and a token count is the file byte for byte, so is a diary's
// header, and entry names, a user id and a session id that mention tokens
// and passwords keep their spelling.
func TestSecretsSideDoorLookAlikes(t *testing.T) {
	const entry = "memory/knowledge/staging-db/SKILL.md"
	const dshSession = "session-a16e50c1-294b-4c71-a54b-4970b3e73c6c"
	header := "---\n# reviewed with the platform team\nname: staging-db\ndescription: the staging database # see the runbook\n" +
		"type: fact\npassword_policy: at least 14 characters\ntoken_count: 12\nsecret_name: prod/db\n" +
		"api_token_ttl: 30d\n# tokens are counted per session\ntags: [db, staging]\n---\n\n"
	for _, tc := range []struct {
		name  string
		feed  func(t *testing.T, s *proc)
		check func(t *testing.T, dir string)
	}{
		{"memory.write keeps the hand edit byte for byte", func(t *testing.T, s *proc) {
			var doc struct{ Raw, Version string }
			s.call("memory.read", map[string]any{"path": entry}, &doc)
			var res struct{ Redacted int }
			s.call("memory.write", map[string]any{"path": entry, "raw": header + "The staging database runs on db-stg-1.\n", "version": doc.Version}, &res)
			if res.Redacted != 0 {
				t.Errorf("memory.write redacted %d", res.Redacted)
			}
		}, func(t *testing.T, dir string) {
			if got := testutil.ReadFile(t, filepath.Join(dir, entry)); got != header+"The staging database runs on db-stg-1.\n" {
				t.Errorf("the file is not the edit:\n%s", got)
			}
		}},
		{"the diary keeps its header", func(t *testing.T, s *proc) {
			dreamWith(t, s, header+"A quiet night.\n")
		}, func(t *testing.T, dir string) {
			diaries, _ := filepath.Glob(filepath.Join(dir, "memory", "dream-log", "*_dream_*.md"))
			if len(diaries) != 1 || testutil.ReadFile(t, diaries[0]) != header+"A quiet night.\n" {
				t.Errorf("diaries %v; want one that is the diary as written", diaries)
			}
		}},
		{"names and ids keep their spelling", func(t *testing.T, s *proc) {
			replies := dreamWith(t, s, "",
				dreamtest.Call{Name: "create_knowledge", Args: map[string]any{"name": "api-token-rotation", "entry_type": "procedure",
					"description": "rotating the api token every quarter", "body": "Rotate it in the vault, then redeploy."}},
				dreamtest.Call{Name: "create_knowledge", Args: map[string]any{"name": "password-policy", "entry_type": "fact",
					"description": "passwords need at least 14 characters", "body": "At least 14 characters, no reuse."}},
				dreamtest.Call{Name: "update_about_user", Args: map[string]any{"user_id": "telegram:123456789", "content": "Prefers short answers."}})
			for _, r := range replies {
				if strings.HasPrefix(r, "Error") {
					t.Errorf("refused: %s", r)
				}
			}
			s.call("session.append", map[string]any{"sessionId": "agent:main:main", "role": "user", "text": "deploy the staging stack"}, nil)
			s.call("session.close", map[string]any{"sessionId": "agent:main:main"}, nil)
			// DSH's session ids are UUIDs; one whose first group starts with a letter once read as a token.
			s.call("session.append", map[string]any{"sessionId": dshSession, "role": "user", "text": "and the production one"}, nil)
			s.call("session.close", map[string]any{"sessionId": dshSession}, nil)
		}, func(t *testing.T, dir string) {
			for _, p := range []string{"memory/knowledge/api-token-rotation/SKILL.md", "memory/knowledge/password-policy/SKILL.md",
				"memory/users/telegram:123456789/about_user.md"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			if all := dirBytes(t, dir); !bytes.Contains(all, []byte(`chat_id: "agent:main:main"`+"\n")) {
				t.Error("no session log header says chat_id: \"agent:main:main\"")
			}
			if all := dirBytes(t, dir); !bytes.Contains(all, []byte("chat_id: "+dshSession+"\n")) {
				t.Errorf("no session log header says chat_id: %s", dshSession)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			seedEntry(t, dir, entry, "---\nname: staging-db\ndescription: the staging database\ntype: fact\n---\n\nThe staging database runs on db-stg-1.\n")
			s := start(t, dir, nil)
			tc.feed(t, s)
			s.call("session.closeAll", nil, nil)
			s.call("shutdown", nil, nil)
			s.waitExit()
			tc.check(t, dir)
		})
	}
}

// dreamWith runs a scripted dream over a one-message log: calls (when any)
// form a turn of their own after the work turn, and diary ("" for a plain
// one) is the diary it writes. It returns the tool replies the model read.
func dreamWith(t *testing.T, s *proc, diary string, calls ...dreamtest.Call) []string {
	t.Helper()
	if diary == "" {
		diary = "---\ntrigger: test\n---\n\nA quiet night.\n"
	}
	s.call("session.append", map[string]any{"sessionId": "d", "role": "user", "text": "tidy up what we did today"}, nil)
	var closed struct{ Path string }
	s.call("session.close", map[string]any{"sessionId": "d"}, &closed)
	usage := dream.Usage{PromptTokens: 1}
	steps := dreamtest.Consolidate(dreamtest.Consolidation{
		Fact:     dreamtest.Fact{Name: "tidy-up-done", Type: "fact", Description: "the user asked for a tidy-up", Body: "The tidy-up ran."},
		Episode:  "the user asked for a tidy-up",
		SourceID: strings.TrimSuffix(filepath.Base(closed.Path), ".md"),
		Diary:    diary,
		Summary:  "done",
		Usage:    usage,
	})
	if len(calls) > 0 {
		last := len(steps) - 2 // before the decay-and-diary turn
		steps = append(steps[:last:last], append([]dreamtest.Step{{Calls: calls, Usage: usage}}, steps[last:]...)...)
	}
	model := dreamtest.NewModel(steps...)
	dreamHost(s, model)
	var run struct{ Status, Reason string }
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
	if run.Status != "deep_sleep" {
		t.Fatalf("sleep.run = %+v; replies %q", run, model.ToolReplies())
	}
	return model.ToolReplies()
}

// mustRefuse checks that the reply to the tool call whose arguments mention
// about says why it was refused: the model must learn to pick another name.
func mustRefuse(t *testing.T, replies []string, about string) {
	t.Helper()
	for _, r := range replies {
		if strings.HasPrefix(r, "Error") && strings.Contains(r, "secret") {
			return
		}
	}
	t.Errorf("no reply refuses the %s name for holding a secret: %q", about, replies)
}

func seedEntry(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// findUnder lists where secret is under dir: in a file or folder name, or in
// a file's bytes (index.sqlite and its journals included).
func findUnder(t *testing.T, dir, secret string) []string {
	t.Helper()
	var found []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Contains(fi.Name(), secret) {
			found = append(found, fmt.Sprintf("in the name %s", rel))
		}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if i := bytes.Index(data, []byte(secret)); i >= 0 {
				line := data[max(0, bytes.LastIndexByte(data[:i], '\n')+1):]
				if j := bytes.IndexByte(line, '\n'); j >= 0 {
					line = line[:j]
				}
				found = append(found, fmt.Sprintf("in %s: %q", rel, clipBytes(line, 160)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func clipBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
