package dream_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/memory"
)

// TestCreateKnowledgeSupersedes: a fact that changed becomes a new entry
// naming the old one under supersedes, and the old one, kept, names the new
// one under superseded_by; every way that cannot be done is refused with
// nothing written, except an old file that cannot be rewritten after the new
// one was written, which the tool answer and the dream's result both say.
func TestCreateKnowledgeSupersedes(t *testing.T) {
	type old struct{ name, desc, body string }
	tests := []struct {
		name string
		olds []old
		// setup runs after the olds were created (plant a link, an earlier successor …).
		setup func(t *testing.T, st *memory.Store)
		args  map[string]any

		wantReply   []string // in the tool answer
		wantRefused bool     // the answer is an Error and nothing new is on disk
		// file (relative to memory/knowledge) → lines it must hold, for the entries on disk
		wantFiles map[string][]string
		// file → text it must not hold
		notInFiles map[string]string
		wantResult string // in the dream's summary or reason
	}{
		{
			name: "en: the port changed",
			olds: []old{{"staging-kafka-port", "The staging kafka broker port clients connect to", "The staging kafka broker listens on 9092."}},
			args: map[string]any{"name": "staging-kafka-port-9094", "entry_type": "fact", "supersedes": "staging-kafka-port",
				// The same description as the old entry: its successor restates its topic, no duplicate.
				"description": "The staging kafka broker port clients connect to",
				"body":        "The staging kafka broker listens on 9094 (moved from 9092)."},
			wantReply: []string{"Created knowledge entry staging-kafka-port-9094", "supersedes staging-kafka-port, which is kept and now marked superseded_by staging-kafka-port-9094"},
			wantFiles: map[string][]string{
				"staging-kafka-port-9094/SKILL.md": {"name: staging-kafka-port-9094\n", "supersedes: staging-kafka-port\n", "listens on 9094"},
				"staging-kafka-port/SKILL.md":      {"name: staging-kafka-port\n", "superseded_by: staging-kafka-port-9094\n", "listens on 9092."},
			},
			notInFiles: map[string]string{"staging-kafka-port-9094/SKILL.md": "superseded_by", "staging-kafka-port/SKILL.md": "supersedes:"},
		},
		{
			name: "zh: 端口改了",
			olds: []old{{"staging-kafka-端口", "staging 环境 kafka 的连接端口", "staging 的 kafka 监听 9092。"}},
			args: map[string]any{"name": "staging-kafka-端口-9094", "entry_type": "fact", "supersedes": "staging-kafka-端口",
				"description": "staging 环境 kafka 的连接端口（已改为 9094）", "body": "staging 的 kafka 端口改成了 9094（原来是 9092）。"},
			wantReply: []string{"supersedes staging-kafka-端口", "superseded_by staging-kafka-端口-9094"},
			wantFiles: map[string][]string{
				"staging-kafka-端口-9094/SKILL.md": {"supersedes: staging-kafka-端口\n", "端口改成了 9094"},
				"staging-kafka-端口/SKILL.md":      {"superseded_by: staging-kafka-端口-9094\n", "监听 9092"},
			},
		},
		{
			name: "an earlier successor is overwritten by the newest",
			olds: []old{{"db-port", "The billing database port", "5432"}},
			setup: func(t *testing.T, st *memory.Store) {
				if _, err := st.SupersedeKnowledge(context.Background(), "db-port", memory.KnowledgeInput{Name: "db-port-6432", Type: "fact", Description: "The billing database port via pgbouncer", Body: "6432", Verified: true}); err != nil {
					t.Fatal(err)
				}
			},
			args: map[string]any{"name": "db-port-6433", "entry_type": "fact", "supersedes": "db-port",
				"description": "The billing database port after the move", "body": "6433"},
			wantReply: []string{"now marked superseded_by db-port-6433"},
			wantFiles: map[string][]string{
				"db-port/SKILL.md":      {"superseded_by: db-port-6433\n"},
				"db-port-6433/SKILL.md": {"supersedes: db-port\n"},
			},
			notInFiles: map[string]string{"db-port/SKILL.md": "db-port-6432\n"},
		},
		{
			name: "an old name a list would split is linked by its folder",
			olds: []old{{"kafka, staging port", "Which port the staging kafka listens on", "9092"}},
			args: map[string]any{"name": "kafka-staging-port-9094", "entry_type": "fact", "supersedes": "kafka, staging port",
				"description": "Which port the staging kafka listens on now", "body": "9094"},
			wantFiles: map[string][]string{
				"kafka-staging-port-9094/SKILL.md": {"supersedes: kafka-staging-port\n"},
				"kafka-staging-port/SKILL.md":      {"superseded_by: kafka-staging-port-9094\n"},
			},
		},
		{
			name:        "the old entry does not exist",
			args:        map[string]any{"name": "new-port", "entry_type": "fact", "supersedes": "no-such-entry", "description": "A port", "body": "9094"},
			wantReply:   []string{`supersedes "no-such-entry": no knowledge entry has that name`, "nothing was written"},
			wantRefused: true,
			wantResult:  "every memory write failed",
		},
		{
			name: "the old entry is a skill, not knowledge",
			setup: func(t *testing.T, st *memory.Store) {
				if _, err := st.CreateSkill(context.Background(), memory.SkillInput{Name: "deploy-staging", Description: "How to deploy to staging", Body: "1. make deploy", Verified: true}); err != nil {
					t.Fatal(err)
				}
			},
			args:        map[string]any{"name": "deploy-staging-v2", "entry_type": "fact", "supersedes": "deploy-staging", "description": "Deploying to staging now", "body": "make release"},
			wantReply:   []string{`supersedes "deploy-staging"`, "is a skill, not a knowledge", "nothing was written"},
			wantRefused: true,
		},
		{
			name:        "the new entry needs a name of its own",
			olds:        []old{{"redis-port", "The redis port", "6379"}},
			args:        map[string]any{"name": "Redis-Port", "entry_type": "fact", "supersedes": "redis-port", "description": "The redis port now", "body": "6380"},
			wantReply:   []string{`the entry superseding "redis-port" needs a name of its own`},
			wantRefused: true,
			wantFiles:   map[string][]string{"redis-port/SKILL.md": {"6379"}},
			notInFiles:  map[string]string{"redis-port/SKILL.md": "superseded_by"},
		},
		{
			name: "a near-duplicate of another entry is still refused",
			olds: []old{
				{"mq-port", "The staging message queue port", "5672"},
				{"mq-admin-port", "The message queue admin console port on staging hosts", "15672"},
			},
			args: map[string]any{"name": "mq-port-5673", "entry_type": "fact", "supersedes": "mq-port",
				"description": "The message queue admin console port on staging hosts", "body": "5673"},
			wantReply:   []string{`not created: "mq-admin-port" already exists (similar description`},
			wantRefused: true,
			notInFiles:  map[string]string{"mq-port/SKILL.md": "superseded_by"},
		},
		{
			// somni never writes through a link: the old entry reads, but its
			// marker cannot be written after the new entry was.
			name: "the old entry cannot be rewritten: said, not silent",
			setup: func(t *testing.T, st *memory.Store) {
				shared := filepath.Join(st.MemoryDir(), "shared", "smtp-port.md")
				if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(shared, []byte("---\nname: smtp-port\ndescription: The outgoing mail relay port\ntype: fact\n---\n\n25\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(st.MemoryDir(), "knowledge", "smtp-port")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join("..", "..", "shared", "smtp-port.md"), filepath.Join(dir, "SKILL.md")); err != nil {
					t.Fatal(err)
				}
			},
			args: map[string]any{"name": "smtp-port-587", "entry_type": "fact", "supersedes": "smtp-port", "description": "The outgoing mail relay port now", "body": "587"},
			wantReply: []string{"Created knowledge entry smtp-port-587 with supersedes: smtp-port, but memory/knowledge/smtp-port/SKILL.md could not be marked superseded_by smtp-port-587",
				"symbolic link", "Say so in your summary"},
			wantFiles:  map[string][]string{"smtp-port-587/SKILL.md": {"supersedes: smtp-port\n", "587"}},
			notInFiles: map[string]string{"smtp-port/SKILL.md": "superseded_by"},
			wantResult: "(1 of 1 memory writes only partly done: create_knowledge: created smtp-port-587, but memory/knowledge/smtp-port/SKILL.md was not marked superseded_by it",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := newStore(t, "2026-03-02_002.md")
			for _, o := range tc.olds {
				if _, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: o.name, Type: "fact", Description: o.desc, Body: o.body, Verified: true}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.setup != nil {
				tc.setup(t, st)
			}
			knowledge := filepath.Join(st.MemoryDir(), "knowledge")
			before, _ := filepath.Glob(filepath.Join(knowledge, "*", "SKILL.md"))

			model := dreamtest.NewModel(dreamtest.Step{Calls: []dreamtest.Call{{Name: "create_knowledge", Args: tc.args}}}, dreamtest.Step{Content: "done"})
			res := newDreamer(st, model).Run(ctx, "test")

			replies := model.ToolReplies()
			if len(replies) != 1 {
				t.Fatalf("replies %q, want one", replies)
			}
			if refused := strings.HasPrefix(replies[0], "Error: "); refused != tc.wantRefused {
				t.Errorf("refused %v, want %v: %s", refused, tc.wantRefused, replies[0])
			}
			for _, w := range tc.wantReply {
				if !strings.Contains(replies[0], w) {
					t.Errorf("reply lacks %q:\n%s", w, replies[0])
				}
			}
			after, _ := filepath.Glob(filepath.Join(knowledge, "*", "SKILL.md"))
			if tc.wantRefused && len(after) != len(before) {
				t.Errorf("refused, yet entries %v became %v", before, after)
			}
			for rel, wants := range tc.wantFiles {
				got := readFile(t, filepath.Join(knowledge, filepath.FromSlash(rel)))
				for _, w := range wants {
					if !strings.Contains(got, w) {
						t.Errorf("%s lacks %q:\n%s", rel, w, got)
					}
				}
			}
			for rel, bad := range tc.notInFiles {
				if got := readFile(t, filepath.Join(knowledge, filepath.FromSlash(rel))); strings.Contains(got, bad) {
					t.Errorf("%s holds %q:\n%s", rel, bad, got)
				}
			}
			got := res.Summary + res.Reason
			if tc.wantResult != "" && !strings.Contains(got, tc.wantResult) {
				t.Errorf("dream result %+v lacks %q", res, tc.wantResult)
			}
			if tc.wantResult == "" && !tc.wantRefused && (res.Status != dream.StatusDeepSleep || res.Summary != "done") {
				t.Errorf("dream result %+v, want deep_sleep with the summary untouched", res)
			}
		})
	}
}

// TestSupersessionAccessors: what the files say reads back through the
// entry's accessors, the way the index is fed (sidecar docOf).
func TestSupersessionAccessors(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if _, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "api-host", Type: "fact", Description: "The API host name", Body: "api1.example.org", Verified: true}); err != nil {
		t.Fatal(err)
	}
	next, err := st.SupersedeKnowledge(ctx, "api-host", memory.KnowledgeInput{Name: "api-host-2", Type: "fact", Description: "The API host name after the migration", Body: "api2.example.org", Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	prev, err := st.ReadItem(ctx, "api-host")
	if err != nil {
		t.Fatal(err)
	}
	reread, err := st.ReadItem(ctx, next.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got := reread.Supersedes(); len(got) != 1 || got[0] != "api-host" || reread.SupersededBy() != "" {
		t.Errorf("new entry: supersedes %q, superseded_by %q", got, reread.SupersededBy())
	}
	if prev.SupersededBy() != "api-host-2" || len(prev.Supersedes()) != 0 {
		t.Errorf("old entry: superseded_by %q, supersedes %q", prev.SupersededBy(), prev.Supersedes())
	}
	// Hand-written forms read the same: a YAML list, and a list under superseded_by.
	for _, tc := range []struct{ supersedes, by string }{
		{"[a, \"b\"]", "[c]"},
		{"a，b", "c"},
	} {
		e := &memory.Entry{Meta: prev.Meta.Clone()}
		e.Meta.Set(memory.KeySupersedes, tc.supersedes)
		e.Meta.Set(memory.KeySupersededBy, tc.by)
		if got := e.Supersedes(); strings.Join(got, "|") != "a|b" || e.SupersededBy() != "c" {
			t.Errorf("%q / %q read as %q / %q", tc.supersedes, tc.by, got, e.SupersededBy())
		}
	}
}
