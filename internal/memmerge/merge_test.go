package memmerge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/frontmatter"
)

// file builds a memory file from header lines and a body.
func file(body string, header ...string) string {
	return "---\n" + strings.Join(header, "\n") + "\n---\n\n" + body
}

// entry is a knowledge entry with the lifecycle numbers that vary.
func entry(stability, score, lastUsed, lastDecay, body string, extra ...string) string {
	h := []string{"name: docker-build-cache", "description: Docker builds need BuildKit", "type: experience",
		"stability: " + stability, "score: " + score, "created: 2026-10-01", "last_used: " + lastUsed, "last_decay: " + lastDecay}
	return file(body, append(h, extra...)...)
}

const (
	para1         = "Use the cache mount only with BuildKit.\n"
	para2         = "- Fix: export DOCKER_BUILDKIT=1 before `docker build`.\n"
	para3         = "- Seen on the CI runner and on laptops.\n"
	knowledgePath = "memory/knowledge/docker-build-cache/SKILL.md"
)

var threeParas = para1 + "\n" + para2 + "\n" + para3

func pydata(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pydata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMerge(t *testing.T) {
	team := pydata(t, "memory/knowledge/团队成员/SKILL.md")
	docker := pydata(t, "memory/knowledge/docker-build-cache/SKILL.md")
	tests := []struct {
		name                 string
		path                 string // knowledgePath when ""
		base                 *string
		ours, theirs         string
		want                 string // the merged file
		sibling, siblingPath string // "" ⇒ no sibling
	}{
		{
			name:   "both reinforced the same entry: gains add up, the later use wins",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:   entry("3", "0.7", "2026-11-28", "2026-11-25", threeParas),
			theirs: entry("3", "0.7", "2026-11-27", "2026-11-25", threeParas),
			want:   entry("4", "0.9", "2026-11-28", "2026-11-25", threeParas),
		},
		{
			name:   "both decayed the same day: one decay, not two",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:   entry("2", "0.45", "2026-11-20", "2026-11-26", threeParas),
			theirs: entry("2", "0.45", "2026-11-20", "2026-11-26", threeParas),
			want:   entry("2", "0.45", "2026-11-20", "2026-11-26", threeParas),
		},
		{
			name:   "one reinforced, the other decayed: both moves stand",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:   entry("3", "0.7", "2026-11-28", "2026-11-25", threeParas),
			theirs: entry("2", "0.45", "2026-11-20", "2026-11-27", threeParas),
			want:   entry("3", "0.65", "2026-11-28", "2026-11-27", threeParas),
		},
		{
			name:   "reinforcements past the top are clamped to 1",
			base:   ptr(entry("2", "0.9", "2026-11-20", "2026-11-25", threeParas)),
			ours:   entry("3", "1.0", "2026-11-28", "2026-11-25", threeParas),
			theirs: entry("3", "1.0", "2026-11-27", "2026-11-25", threeParas),
			want:   entry("4", "1.0", "2026-11-28", "2026-11-25", threeParas),
		},
		{
			name:   "one edits the body, the other reinforces: the edit and the merged numbers",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:   entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1)),
			theirs: entry("3", "0.7", "2026-11-28", "2026-11-25", threeParas),
			want:   entry("3", "0.7", "2026-11-28", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1)),
		},
		{
			name:   "both edit different paragraphs: both edits",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:   entry("3", "0.7", "2026-11-28", "2026-11-25", strings.Replace(threeParas, "only with", "only when building with", 1)),
			theirs: entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1)),
			want: entry("3", "0.7", "2026-11-28", "2026-11-25",
				strings.Replace(strings.Replace(threeParas, "only with", "only when building with", 1), "laptops", "the staging hosts", 1)),
		},
		{
			name:        "both edit the same line: ours, and theirs as a sibling",
			base:        ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:        entry("3", "0.7", "2026-11-28", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1)),
			theirs:      entry("3", "0.7", "2026-11-27", "2026-11-25", strings.Replace(threeParas, "laptops", "the build farm", 1)),
			want:        entry("4", "0.9", "2026-11-28", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1)),
			siblingPath: "memory/knowledge/docker-build-cache-conflict-%h/SKILL.md",
			sibling: file(strings.Replace(threeParas, "laptops", "the build farm", 1),
				"name: docker-build-cache-conflict-%h", "description: Docker builds need BuildKit", "type: experience",
				"stability: 3", "score: 0.7", "created: 2026-10-01", "last_used: 2026-11-27", "last_decay: 2026-11-25",
				"conflicts_with: docker-build-cache"),
		},
		{
			name:        "both added the file with different text: a sibling",
			ours:        entry("0", "0.5", "2026-11-28", "2026-11-28", "Ours.\n"),
			theirs:      entry("0", "0.5", "2026-11-27", "2026-11-27", "Theirs.\n"),
			want:        entry("0", "0.5", "2026-11-28", "2026-11-28", "Ours.\n"),
			siblingPath: "memory/knowledge/docker-build-cache-conflict-%h/SKILL.md",
			sibling: file("Theirs.\n", "name: docker-build-cache-conflict-%h", "description: Docker builds need BuildKit", "type: experience",
				"stability: 0", "score: 0.5", "created: 2026-10-01", "last_used: 2026-11-27", "last_decay: 2026-11-27",
				"conflicts_with: docker-build-cache"),
		},
		{
			name:   "both added the same text: the higher numbers, the earlier creation",
			ours:   file("Same.\n", "name: n", "stability: 1", "score: 0.5", "created: 2026-11-02", "last_used: 2026-11-28"),
			theirs: file("Same.\n", "name: n", "stability: 2", "score: 0.45", "created: 2026-11-01", "last_used: 2026-11-27"),
			want:   file("Same.\n", "name: n", "stability: 2", "score: 0.5", "created: 2026-11-01", "last_used: 2026-11-28"),
		},
		{
			name:   "unknown keys keep their order; one side's change wins; both changed (a deletion too): ours",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "ticket: 123-456", "owner: liu", "zone: a")),
			ours:   entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "ticket: 123-456", "owner: chao", "zone: b"),
			theirs: entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "ticket: 123-789", "zone: c", "added: yes"),
			want:   entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "ticket: 123-789", "owner: chao", "zone: b", "added: yes"),
		},
		{
			name:   "lists: what either side added, less what either side removed",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "related: a, b", "tags: [ci, docker]")),
			ours:   entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "related: a, b, c", "tags: [ci, docker]"),
			theirs: entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "related: b, d", "tags: [ci, docker, buildkit]", "supersedes: old-cache"),
			want:   entry("2", "0.5", "2026-11-20", "2026-11-25", para1, "related: b, c, d", "tags: ci, docker, buildkit", "supersedes: old-cache"),
		},
		{
			name:   "CRLF on every side: merged with CRLF kept",
			base:   ptr(crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas))),
			ours:   crlf(entry("3", "0.7", "2026-11-28", "2026-11-25", strings.Replace(threeParas, "only with", "only when building with", 1))),
			theirs: crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1))),
			want: crlf(entry("3", "0.7", "2026-11-28", "2026-11-25",
				strings.Replace(strings.Replace(threeParas, "only with", "only when building with", 1), "laptops", "the staging hosts", 1))),
		},
		{
			name:   "CRLF on ours, LF on theirs: a line merge, not a conflict on every line",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)),
			ours:   crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "only with", "only when building with", 1))),
			theirs: entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1)),
			want: crlf(entry("2", "0.5", "2026-11-20", "2026-11-25",
				strings.Replace(strings.Replace(threeParas, "only with", "only when building with", 1), "laptops", "the staging hosts", 1))),
		},
		{
			name:        "CRLF on the same line: the sibling keeps their line ends",
			base:        ptr(crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas))),
			ours:        crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1))),
			theirs:      crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the build farm", 1))),
			want:        crlf(entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1))),
			siblingPath: "memory/knowledge/docker-build-cache-conflict-%h/SKILL.md",
			sibling: crlf(file(strings.Replace(threeParas, "laptops", "the build farm", 1),
				"name: docker-build-cache-conflict-%h", "description: Docker builds need BuildKit", "type: experience",
				"stability: 2", "score: 0.5", "created: 2026-10-01", "last_used: 2026-11-20", "last_decay: 2026-11-25",
				"conflicts_with: docker-build-cache")),
		},
		{
			name:   "Chinese text: both edits, the later use",
			path:   "memory/knowledge/团队成员/SKILL.md",
			base:   ptr(team + "\n补充：\n- 每周一例会。\n"),
			ours:   strings.Replace(team, "刘超（网关）", "刘超（网关、发布）", 1) + "\n补充：\n- 每周一例会。\n",
			theirs: strings.Replace(team, "last_used: 2026-11-28", "last_used: 2026-11-30", 1) + "\n补充：\n- 每周二例会。\n",
			want:   strings.Replace(strings.Replace(team, "刘超（网关）", "刘超（网关、发布）", 1), "last_used: 2026-11-28", "last_used: 2026-11-30", 1) + "\n补充：\n- 每周二例会。\n",
		},
		{
			name:        "Chinese text on the same line: the sibling beside it",
			path:        "memory/knowledge/团队成员/SKILL.md",
			base:        ptr(team),
			ours:        strings.Replace(team, "刘超（网关）", "刘超（网关、发布）", 1),
			theirs:      strings.Replace(team, "刘超（网关）", "刘超（发布）", 1),
			want:        strings.Replace(team, "刘超（网关）", "刘超（网关、发布）", 1),
			siblingPath: "memory/knowledge/团队成员-conflict-%h/SKILL.md",
			sibling: strings.NewReplacer("刘超（网关）", "刘超（发布）", "name: 团队成员", "name: 团队成员-conflict-%h",
				"last_decay: 2026-11-28\n", "last_decay: 2026-11-28\nconflicts_with: 团队成员\n").Replace(team),
		},
		{
			name:   "the Python sidecar's flat header: untouched values keep their bytes",
			base:   ptr(docker),
			ours:   strings.Replace(docker, "score: 0.72", "score: 0.92", 1),
			theirs: strings.Replace(docker, "ticket: 123-456", "ticket: 123-457", 1),
			want:   strings.Replace(strings.Replace(docker, "score: 0.72", "score: 0.92", 1), "ticket: 123-456", "ticket: 123-457", 1),
		},
		{
			name:        "an unreadable header on theirs: ours as it is, theirs beside it byte for byte",
			base:        ptr(docker),
			ours:        strings.Replace(docker, "score: 0.72", "score: 0.92", 1),
			theirs:      pydata(t, "memory/knowledge/broken-yaml/SKILL.md"),
			want:        strings.Replace(docker, "score: 0.72", "score: 0.92", 1),
			siblingPath: "memory/knowledge/docker-build-cache-conflict-%h/SKILL.md",
			sibling:     pydata(t, "memory/knowledge/broken-yaml/SKILL.md"),
		},
		{
			name:   "an unreadable header on ours that theirs left alone: ours",
			base:   ptr(pydata(t, "memory/knowledge/broken-yaml/SKILL.md")),
			ours:   pydata(t, "memory/knowledge/broken-yaml/SKILL.md"),
			theirs: pydata(t, "memory/knowledge/broken-yaml/SKILL.md"),
			want:   pydata(t, "memory/knowledge/broken-yaml/SKILL.md"),
		},
		{
			name:   "an unreadable header ours left alone and theirs mended: theirs",
			base:   ptr(pydata(t, "memory/knowledge/broken-yaml/SKILL.md")),
			ours:   pydata(t, "memory/knowledge/broken-yaml/SKILL.md"),
			theirs: file("Body.\n", "name: broken-yaml", "description: mended"),
			want:   file("Body.\n", "name: broken-yaml", "description: mended"),
		},
		{
			name:   "a body with its own marker line is merged as text",
			base:   ptr(entry("2", "0.5", "2026-11-20", "2026-11-25", "Git writes:\n\n<<<<<<< HEAD\n\nwhen lines clash.\n")),
			ours:   entry("3", "0.7", "2026-11-28", "2026-11-25", "Git writes:\n\n<<<<<<< HEAD\n\nwhen lines clash.\n"),
			theirs: entry("2", "0.5", "2026-11-20", "2026-11-25", "Git writes:\n\n<<<<<<< HEAD\n\nwhen two sides' lines clash.\n"),
			want:   entry("3", "0.7", "2026-11-28", "2026-11-25", "Git writes:\n\n<<<<<<< HEAD\n\nwhen two sides' lines clash.\n"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path
			if p == "" {
				p = knowledgePath
			}
			var base []byte
			if tc.base != nil {
				base = []byte(*tc.base)
			}
			res, err := Merge(p, base, []byte(tc.ours), []byte(tc.theirs))
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Merged) != tc.want {
				t.Errorf("merged:\n%s\nwant:\n%s", res.Merged, tc.want)
			}
			assertNoNewMarkers(t, tc.ours, tc.theirs, res)
			if tc.siblingPath == "" {
				if res.Sibling != nil {
					t.Fatalf("unexpected sibling %s:\n%s", res.Sibling.Path, res.Sibling.Data)
				}
				return
			}
			if res.Sibling == nil {
				t.Fatal("no sibling: their text is lost")
			}
			h := hashOf(tc.theirs)
			if want := strings.ReplaceAll(tc.siblingPath, "%h", h); res.Sibling.Path != want {
				t.Errorf("sibling path %s, want %s", res.Sibling.Path, want)
			}
			if want := strings.ReplaceAll(tc.sibling, "%h", h); string(res.Sibling.Data) != want {
				t.Errorf("sibling:\n%s\nwant:\n%s", res.Sibling.Data, want)
			}
			if _, err := frontmatter.Parse(res.Sibling.Path, res.Sibling.Data); err != nil && string(res.Sibling.Data) != tc.theirs {
				t.Errorf("a sibling Merge wrote does not parse: %v", err)
			}
		})
	}
}

// assertNoNewMarkers fails when a result holds a conflict marker line neither side had.
func assertNoNewMarkers(t *testing.T, ours, theirs string, res Result) {
	t.Helper()
	out := string(res.Merged)
	if res.Sibling != nil {
		out += string(res.Sibling.Data)
	}
	if n := markerLines(out); n > markerLines(ours)+markerLines(theirs) {
		t.Errorf("a conflict marker in the result:\n%s", out)
	}
	if strings.Contains(out, "=======\n") && !strings.Contains(ours+theirs, "=======\n") {
		t.Errorf("a conflict separator in the result:\n%s", out)
	}
}

func ptr(s string) *string { return &s }

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func hashOf(theirs string) string { return shortHash([]byte(theirs)) }
