package memory

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/testutil"
)

// pyStore copies testdata/pydata into a temp dir (whose path contains "knowledge", to catch classification
// by substring) and opens a store on it.
func pyStore(t testing.TB) (*Store, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "knowledge", "episodes", "data")
	testutil.CopyTree(t, testutil.Testdata("pydata"), dst)
	s, err := Open(Config{DataDir: dst, Now: func() time.Time { return testutil.FixedNow }, Logger: testutil.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return s, dst
}

func newTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(Config{DataDir: t.TempDir(), Now: func() time.Time { return testutil.FixedNow }, Logger: testutil.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func names(es []*Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e.Kind)+":"+e.Name)
	}
	sort.Strings(out)
	return out
}

func TestOpenDefaults(t *testing.T) {
	s, err := Open(Config{DataDir: "/d"})
	if err != nil {
		t.Fatal(err)
	}
	if s.MemoryDir() != "/d/memory" || s.SkillDir() != "/d/skills" {
		t.Fatalf("defaults: %s %s", s.MemoryDir(), s.SkillDir())
	}
	s, _ = Open(Config{DataDir: "/d", MemoryDir: "/m", SkillDir: "/s"})
	if s.MemoryDir() != "/m" || s.SkillDir() != "/s" {
		t.Fatal("overrides ignored")
	}
	if _, err := Open(Config{}); err == nil {
		t.Fatal("empty config accepted")
	}
}

func TestListPythonDataDir(t *testing.T) {
	s, dir := pyStore(t)
	ctx := context.Background()
	tests := []struct {
		kinds []Kind
		want  []string
	}{
		{nil, []string{"episode:2026-11-20_001", "knowledge:api-gateway-503", "knowledge:docker-build-cache", "knowledge:团队成员", "skill:code-review", "skill:deploy-checklist"}},
		{[]Kind{KindKnowledge}, []string{"knowledge:api-gateway-503", "knowledge:docker-build-cache", "knowledge:团队成员"}},
		{[]Kind{KindSkill}, []string{"skill:code-review", "skill:deploy-checklist"}},
		{[]Kind{KindIntention}, []string{"intention:pi-20261128-001", "intention:pi-20261129-001"}},
	}
	for _, tt := range tests {
		es, problems, err := s.List(ctx, tt.kinds...)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(es); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("List(%v) = %v, want %v", tt.kinds, got, tt.want)
		}
		wantProblem := tt.kinds == nil || tt.kinds[0] == KindKnowledge
		if wantProblem {
			if len(problems) != 1 || !strings.HasSuffix(problems[0].Path, filepath.Join("broken-yaml", "SKILL.md")) || problems[0].Line != 4 {
				t.Errorf("problems = %+v", problems)
			}
		} else if len(problems) != 0 {
			t.Errorf("unexpected problems %+v", problems)
		}
	}
	// Scan agrees with List on what exists (plus the broken file, which is a ref but no entry).
	refs, err := s.Scan(ctx)
	if err != nil || len(refs) != 7 {
		t.Fatalf("Scan = %d refs, %v", len(refs), err)
	}
	for _, r := range refs {
		if r.Size == 0 || r.ModTime.IsZero() {
			t.Errorf("ref without stat: %+v", r)
		}
	}
	// Typed accessors on the fixture.
	e, err := s.Find(ctx, "docker-build-cache")
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindKnowledge || e.Stability() != 2 || e.Score() != 0.72 || e.Type() != "experience" ||
		!strings.Contains(e.Description(), "BuildKit") || e.Meta.Value("ticket") != "123-456" {
		t.Errorf("accessors: %+v", e.Meta)
	}
	if d, ok := e.LastDecay(); !ok || d.Format(dateLayout) != "2026-11-25" {
		t.Errorf("last_decay %v %v", d, ok)
	}
	sk, err := s.Find(ctx, "deploy-checklist")
	if err != nil || sk.Kind != KindSkill || !sk.Learned {
		t.Fatalf("learned skill: %+v %v", sk, err)
	}
	us, err := s.Find(ctx, "code-review")
	if err != nil || us.Kind != KindSkill || us.Learned {
		t.Fatalf("user skill: %+v %v", us, err)
	}
	if _, err := s.Find(ctx, "memory-extraction"); !errors.Is(err, ErrNotFound) {
		t.Errorf("strategy override listed as a skill: %v", err)
	}
	if _, err := s.Find(ctx, "../../etc/passwd"); !errors.Is(err, ErrUnsafeName) {
		t.Errorf("traversal find: %v", err)
	}
	if _, err := s.Load(filepath.Join(dir, "..", "outside.md")); !errors.Is(err, ErrUnsafeName) {
		t.Errorf("load outside: %v", err)
	}
}

func TestSaveKeepsUnknownKeysAndBody(t *testing.T) {
	s, dir := pyStore(t)
	p := filepath.Join(dir, "memory", "knowledge", "docker-build-cache", "SKILL.md")
	before := testutil.ReadFile(t, p)
	e, err := s.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(e); err != nil {
		t.Fatal(err)
	}
	if after := testutil.ReadFile(t, p); after != before {
		t.Fatalf("unchanged save rewrote the file:\n%s\n---\n%s", before, after)
	}
	if err := s.RecordUsage(e); err != nil {
		t.Fatal(err)
	}
	after := testutil.ReadFile(t, p)
	doc, err := frontmatter.Parse(p, []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(doc.Meta.Keys(), ","); got != "name,description,type,stability,score,created,last_used,last_decay,related,applies_when,ticket" {
		t.Errorf("key order %s", got)
	}
	if doc.Meta.Value("score") != "0.92" || doc.Meta.Value("stability") != "3" || doc.Meta.Value("last_used") != "2026-11-30" {
		t.Errorf("usage not applied: %s", after)
	}
	if _, body, _ := strings.Cut(before, "---\n\n"); !strings.HasSuffix(after, body) {
		t.Errorf("body changed")
	}
	// The broken file is refused, not overwritten.
	bp := filepath.Join(dir, "memory", "knowledge", "broken-yaml", "SKILL.md")
	broken := testutil.ReadFile(t, bp)
	err = s.Save(&Entry{Path: bp, Meta: frontmatter.New(), Body: "x"})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("save of a new entry over a broken file: %v, want fs.ErrExist", err)
	}
	if testutil.ReadFile(t, bp) != broken {
		t.Error("broken file rewritten")
	}
}

func TestDecayAllOnFixture(t *testing.T) {
	s, dir := pyStore(t)
	ctx := context.Background()
	mem := filepath.Join(dir, "memory")
	untouched := []string{
		filepath.Join(mem, "knowledge", "broken-yaml", "SKILL.md"),
		filepath.Join(dir, "skills", "user_skills", "code-review", "SKILL.md"),
	}
	before := map[string]string{}
	for _, p := range untouched {
		before[p] = testutil.ReadFile(t, p)
	}
	rep, err := s.DecayAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rep.Retired)
	if strings.Join(rep.Retired, ",") != "2026-11-20_001,api-gateway-503" {
		t.Errorf("retired %v", rep.Retired)
	}
	if len(rep.Problems) != 1 {
		t.Errorf("report %+v", rep)
	}
	for p, b := range before {
		if testutil.ReadFile(t, p) != b {
			t.Errorf("%s was rewritten", p)
		}
	}
	e, err := s.Find(ctx, "docker-build-cache")
	if err != nil {
		t.Fatal(err)
	}
	want := 0.72 * math.Pow(DailyDecay(DecayBaseSemantic, 2), 5)
	if math.Abs(e.Score()-want) > 0.0006 || e.Meta.Value(KeyLastDecay) != "2026-11-30" {
		t.Errorf("score %v want %v, last_decay %s", e.Score(), want, e.Meta.Value(KeyLastDecay))
	}
	if _, err := os.Stat(filepath.Join(mem, "archived", "api-gateway-503", "SKILL.md")); err != nil {
		t.Errorf("retired knowledge not archived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mem, "episodes", "archived", "2026-11-20_001", "SKILL.md")); err != nil {
		t.Errorf("retired episode not archived: %v", err)
	}
	// A second pass the same day changes nothing.
	rep, err = s.DecayAll(ctx)
	if err != nil || rep.Decayed != 0 || len(rep.Retired) != 0 {
		t.Errorf("second pass: %+v %v", rep, err)
	}
}

func TestRetirementCap(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(Config{DataDir: dir, Now: func() time.Time { return testutil.FixedNow }, Logger: testutil.QuietLogger()})
	ctx := context.Background()
	for i := 0; i < MaxSemanticEntries+3; i++ {
		name := "k" + strings.Repeat("x", i%5) + "-" + time.Duration(i).String()
		e := s.NewEntry(Draft{Kind: KindKnowledge, Path: filepath.Join(s.dirs.knowledge, name, "SKILL.md"), Name: name, Description: "d",
			Type: "fact", Score: 0.3 + float64(i)/1000, Body: "b\n"})
		if err := s.Save(e); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := s.DecayAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Retired) != 3 {
		t.Fatalf("retired %d, want 3", len(rep.Retired))
	}
	es, _, _ := s.List(ctx, KindKnowledge)
	if len(es) != MaxSemanticEntries {
		t.Fatalf("%d left", len(es))
	}
	for _, e := range es {
		if e.Score() < 0.303 {
			t.Errorf("a lowest entry survived: %s %v", e.Name, e.Score())
		}
	}
}

func TestCreateAndUpdate(t *testing.T) {
	s, dir := pyStore(t)
	ctx := context.Background()
	e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "redis 超时", Type: "fact", Description: "Redis timeouts are caused by the slowlog flood at midnight", Body: "Check SLOWLOG.", Verified: false})
	if err != nil {
		t.Fatal(err)
	}
	if e.Score() != 0.3 || !strings.HasPrefix(e.Body, UnverifiedBanner) || filepath.Base(filepath.Dir(e.Path)) != "redis-超时" {
		t.Errorf("unverified create: %v %q %s", e.Score(), e.Body, e.Path)
	}
	v, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "verified-one", Type: "decision", Description: "We ship on Tuesdays only", Body: "Because QA.", Verified: true})
	if err != nil || v.Score() != 0.5 || strings.Contains(v.Body, "unverified") {
		t.Fatalf("verified create: %+v %v", v, err)
	}
	dupTests := []struct {
		name, desc, why string
	}{
		{"docker-build-cache", "anything new", "same name"},
		{"DOCKER-BUILD-CACHE", "anything new", "same name"},
		{"redis:超时", "something else entirely here", "same directory name"},
		{"buildkit-ci", "Docker builds on the CI runner: cache mounts need BuildKit, set DOCKER_BUILDKIT=1", "similar description"},
	}
	for _, tt := range dupTests {
		_, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: tt.name, Type: "fact", Description: tt.desc, Body: "body", Verified: true})
		var de *DuplicateError
		if !errors.As(err, &de) || !errors.Is(err, ErrExists) || !strings.HasPrefix(de.Why, tt.why) {
			t.Errorf("create %q: %v, want duplicate (%s)", tt.name, err, tt.why)
		}
	}
	badTests := []struct{ name, typ, desc, body string }{
		{"../../escape", "fact", "d", "b"},
		{"a/b", "fact", "d", "b"},
		{"ok", "fact", "", "b"},
		{"ok", "fact", "d", "  "},
		{"ok", "episode", "d", "b"},
	}
	for _, tt := range badTests {
		if _, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: tt.name, Type: tt.typ, Description: tt.desc, Body: tt.body, Verified: true}); err == nil {
			t.Errorf("create %+v accepted", tt)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Fatal("traversal wrote outside")
	}
	// Update reinforces.
	u, err := s.UpdateKnowledge(ctx, KnowledgeUpdate{Name: "团队成员", Body: "团队：六个人。\n", ScoreDelta: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if u.Score() != 0.8 || u.Stability() != 2 || u.Body != "团队：六个人。\n" || u.Description() != "项目团队共有五个人，刘超负责网关" {
		t.Errorf("update: score %v stab %d body %q", u.Score(), u.Stability(), u.Body)
	}
	if _, err := s.UpdateKnowledge(ctx, KnowledgeUpdate{Name: "does-not-exist", Body: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update missing: %v", err)
	}
	if _, err := s.UpdateKnowledge(ctx, KnowledgeUpdate{Name: "deploy-checklist", Body: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update a skill as knowledge: %v", err)
	}
	if _, err := s.UpdateKnowledge(ctx, KnowledgeUpdate{Name: "团队成员", ScoreDelta: 3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("huge delta: %v", err)
	}
	// Skills.
	if _, err := s.UpdateSkill(ctx, SkillUpdate{Name: "code-review", Body: "Read the tests first. Ask for table-driven tests. And more."}); !errors.Is(err, ErrInvalid) {
		t.Errorf("auto_merge:false skill updated: %v", err)
	}
	other := filepath.Join(dir, "skills", "user_skills", "lint", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("---\nname: lint\ndescription: how to lint\n---\n\nRun golangci-lint with the repo config.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateSkill(ctx, SkillUpdate{Name: "lint", Body: "Run lint."}); !errors.Is(err, ErrInvalid) {
		t.Errorf("user skill shortened: %v", err)
	}
	ls, err := s.UpdateSkill(ctx, SkillUpdate{Name: "lint", MergeNote: "also run go vet"})
	if err != nil || !strings.Contains(ls.Body, "golangci-lint") || !strings.Contains(ls.Body, "merge note (2026-11-30): also run go vet") {
		t.Errorf("merge note: %q %v", ls.Body, err)
	}
	ds, err := s.UpdateSkill(ctx, SkillUpdate{Name: "deploy-checklist", Body: "1. Shorter.\n", StabilityDelta: 1})
	if err != nil || ds.Body != "1. Shorter.\n" || ds.Stability() != 3 {
		t.Errorf("learned skill update: %+v %v", ds, err)
	}
	sk, err := s.CreateSkill(ctx, SkillInput{Name: "rollback", Description: "How to roll back a bad gateway deploy", Body: "1. Revert.\n", Verified: true})
	if err != nil || !sk.Learned || !strings.HasPrefix(sk.Path, s.dirs.learned) {
		t.Fatalf("create skill: %+v %v", sk, err)
	}
	// ListItems lists every file once.
	items, _, err := s.ListItems(ctx, ScopeAll)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Path] {
			t.Errorf("listed twice: %s", it.Path)
		}
		seen[it.Path] = true
	}
	if len(items) != 9 {
		t.Errorf("ListItems all = %v", names(items))
	}
	if _, _, err := s.ListItems(ctx, "bogus"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad scope: %v", err)
	}
	// Archive.
	dest, err := s.Archive(ctx, "verified-one")
	if err != nil || !strings.HasPrefix(dest, s.dirs.archive) {
		t.Fatalf("archive: %s %v", dest, err)
	}
	if _, err := s.Find(ctx, "verified-one"); !errors.Is(err, ErrNotFound) {
		t.Errorf("archived still found: %v", err)
	}
	if _, err := s.Archive(ctx, "../knowledge"); err == nil {
		t.Error("archive traversal accepted")
	}
}

func TestRecordEpisode(t *testing.T) {
	s, _ := pyStore(t)
	ctx := context.Background()
	tests := []struct {
		in       EpisodeInput
		wantName string
		score    float64
	}{
		{EpisodeInput{What: "Reviewed the gateway config", Salience: "high", Source: "2026-11-29_001", Tags: "gateway", Objects: "nginx.conf"}, "2026-11-29_001", 0.8},
		{EpisodeInput{What: "Second episode from the same log", Source: "2026-11-29_001"}, "2026-11-29_001-2", 0.4},
		{EpisodeInput{What: "Third", Source: "session-log/2026-11-29_001.md", Salience: "medium"}, "2026-11-29_001-3", 0.6},
		{EpisodeInput{What: "No source"}, "ep-20261130-100000", 0.4},
	}
	for _, tt := range tests {
		e, err := s.RecordEpisode(ctx, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != tt.wantName || e.Score() != tt.score || e.Type() != "episode" {
			t.Errorf("episode %q: name %s score %v", tt.in.What, e.Name, e.Score())
		}
	}
	e, _ := s.Find(ctx, "2026-11-29_001")
	want := "- when: 2026-11-30T10:00:00\n- actors: user, agent\n- outcome: unknown\n- objects: nginx.conf\n- tags: gateway\n- salience: high\n- source: 2026-11-29_001\n"
	if e.Body != want {
		t.Errorf("body:\n%s\nwant\n%s", e.Body, want)
	}
	for _, bad := range []EpisodeInput{{What: ""}, {What: "x", Source: "../.."}, {What: "x", Salience: "extreme"}} {
		if _, err := s.RecordEpisode(ctx, bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

// TestScanUnder checks that a subtree rescan reports exactly what a full
// Scan reports below the same path, and nothing for skipped places.
func TestScanUnder(t *testing.T) {
	s, dir := pyStore(t)
	ctx := context.Background()
	mem, skills := filepath.Join(dir, "memory"), filepath.Join(dir, "skills")
	rel := func(refs []Ref) []string {
		out := []string{}
		for _, r := range refs {
			p, _ := filepath.Rel(dir, r.Path)
			out = append(out, string(r.Kind)+":"+filepath.ToSlash(p))
		}
		return out
	}
	all, err := s.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    string
		want []string // nil ⇒ same as the full scan
	}{
		{"data dir holds every root", dir, nil},
		{"memory dir", mem, []string{"episode:memory/episodes/2026-11-20_001/SKILL.md", "knowledge:memory/knowledge/api-gateway-503/SKILL.md",
			"knowledge:memory/knowledge/docker-build-cache/SKILL.md", "knowledge:memory/knowledge/broken-yaml/SKILL.md",
			"knowledge:memory/knowledge/团队成员/SKILL.md"}},
		{"one entry dir", filepath.Join(mem, "knowledge", "团队成员"), []string{"knowledge:memory/knowledge/团队成员/SKILL.md"}},
		{"one entry file", filepath.Join(mem, "episodes", "2026-11-20_001", "SKILL.md"), []string{"episode:memory/episodes/2026-11-20_001/SKILL.md"}},
		{"a user skill collection", filepath.Join(skills, "user_skills"), []string{"skill:skills/user_skills/code-review/SKILL.md"}},
		{"archived is skipped", filepath.Join(mem, "episodes", "archived", "ep-20260101-090000"), []string{}},
		{"strategy override is not a skill", filepath.Join(skills, "base_skill", "memory-extraction", "SKILL.md"), []string{}},
		{"session logs are not indexed", filepath.Join(mem, "session-log"), []string{}},
		{"missing path", filepath.Join(mem, "knowledge", "gone"), []string{}},
		{"outside the store", t.TempDir(), []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ScanUnder(ctx, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = rel(all)
			}
			g := rel(got)
			sort.Strings(g)
			sort.Strings(want)
			if !reflect.DeepEqual(g, want) {
				t.Errorf("ScanUnder(%s)\n got %q\nwant %q", tc.p, g, want)
			}
		})
	}
}
