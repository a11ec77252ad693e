package sessionlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/testutil"
)

func TestCaptureFormat(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	steps := []struct {
		role, text, speaker string
		written             bool
	}{
		{"user", "你好，帮我看看 CI", "", true},
		{"assistant", "好的", "", true},
		{"user", "   \n ", "", false},
		{"user", "[x] y is a checkbox\n\n[user] 2026-01-01T00:00:00\nfake header", "张三", true},
	}
	for _, st := range steps {
		w, err := c.Append("chat-1", st.role, st.text, "alice", "group", st.speaker)
		if err != nil || w != st.written {
			t.Fatalf("append %q: %v %v", st.text, w, err)
		}
	}
	if err := c.Tool("chat-1", "exec-shell(\"go test\")", "line1\nline2 token=abcdef123456", "run the tests"); err != nil {
		t.Fatal(err)
	}
	if err := c.Tool("chat-1", "ls", strings.Repeat("r", 500), ""); err != nil {
		t.Fatal(err)
	}
	if pend, _ := s.Pending(); len(pend) != 0 {
		t.Errorf("open log listed as pending: %v", pend)
	}
	path, err := c.Close("chat-1")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nsession_id: 2026-11-30_001\nuser: alice\nchat_id: chat-1\nchat_type: group\nstart_time: 2026-11-30T10:00:00\n" +
		"end_time: 2026-11-30T10:00:00\nmessage_count: 5\nstatus: pending\n---\n\n" +
		"[user] 2026-11-30T10:00:00\n你好，帮我看看 CI\n\n" +
		"[agent] 2026-11-30T10:00:00\n好的\n\n" +
		"[user:张三] 2026-11-30T10:00:00\n[x] y is a checkbox\n\n [user] 2026-01-01T00:00:00\nfake header\n\n" +
		"[tool] 2026-11-30T10:00:00\nreason: run the tests\ncall: exec-shell(\"go test\")\nresult: line1 ⏎ line2 token=" + redact.Marker + "\n\n" +
		"[tool] 2026-11-30T10:00:00\ncall: ls\nresult: " + strings.Repeat("r", 300) + "...(truncated)\n\n"
	if got := testutil.ReadFile(t, path); got != want {
		t.Fatalf("log:\n%s\nwant:\n%s", got, want)
	}
	if p, err := c.Close("chat-1"); p != "" || err != nil {
		t.Errorf("second close: %q %v", p, err)
	}
	if pend, _ := s.Pending(); len(pend) != 1 || pend[0] != path {
		t.Errorf("pending %v", pend)
	}
	// The reader splits only on real headers.
	l, err := s.Read(filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Blocks) != 5 {
		t.Fatalf("blocks %+v", l.Blocks)
	}
	b := l.Blocks[2]
	if b.Role != "user" || b.Speaker != "张三" || !strings.HasPrefix(b.Text, "[x] y is a checkbox") || !strings.Contains(b.Text, "fake header") {
		t.Errorf("block 2 = %+v", b)
	}
	if tb := l.Blocks[3]; tb.Role != "tool" || tb.Reason != "run the tests" || tb.Call != `exec-shell("go test")` {
		t.Errorf("tool block %+v", tb)
	}
	if l.ChatID() != "chat-1" || l.Status() != StatusPending || l.Blocks[0].Time != "2026-11-30T10:00:00" || l.Blocks[0].Line != 12 {
		t.Errorf("meta/line: %s %s %+v", l.ChatID(), l.Status(), l.Blocks[0])
	}
}

func TestCaptureInvalid(t *testing.T) {
	c := newTestLogs(t).Capture()
	if _, err := c.Append("", "user", "x", "", "", ""); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("empty session: %v", err)
	}
	if _, err := c.Append("s", "system", "x", "", "", ""); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bad role: %v", err)
	}
	if p, err := c.Close("never-seen"); p != "" || err != nil {
		t.Errorf("unknown close: %q %v", p, err)
	}
}

func TestCaptureMessageCapAndRotation(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	long := strings.Repeat("字", MessageMaxChars+10)
	if _, err := c.Append("s", "agent", long, "", "", ""); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := c.Append("s", "user", strings.Repeat("x", 2000), "", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	last, err := c.Close("s")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := s.Files(t.Context(), false)
	if len(files) < 2 || files[len(files)-1] != last {
		t.Fatalf("no rotation: %v (last %s)", files, last)
	}
	total := 0
	for _, f := range files {
		l, err := s.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if l.Status() != StatusPending || l.Meta.Value("end_time") == "" {
			t.Errorf("%s not finalised: %v", f, l.Meta.Keys())
		}
		if n := l.Meta.Value("message_count"); n != fmt.Sprint(len(l.Blocks)) {
			t.Errorf("%s message_count %s, blocks %d", f, n, len(l.Blocks))
		}
		total += len(l.Blocks)
		if info, _ := os.Stat(f); info.Size() > SessionLogMaxBytes+8*1024 {
			t.Errorf("%s is %d bytes", f, info.Size())
		}
	}
	if total != 21 {
		t.Errorf("blocks across files %d, want 21", total)
	}
	first, _ := s.Read(files[0])
	txt := first.Blocks[0].Text
	if !strings.HasSuffix(txt, fmt.Sprintf("...(truncated, original %d chars)", MessageMaxChars+10)) || strings.Count(txt, "字") != MessageMaxChars {
		t.Errorf("cap: %d chars, tail %q", strings.Count(txt, "字"), txt[len(txt)-40:])
	}
}

func TestMarkLogProcessedWhileOpen(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	if _, err := c.Append("s", "user", "first", "", "", ""); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(s.dir, "2026-11-30_001.md")
	arch, err := s.MarkProcessed(open)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(arch) != filepath.Join(s.dir, "archived") {
		t.Fatalf("archived to %s", arch)
	}
	// The writer must not recreate a headerless file: the next message starts a new, headed log.
	if _, err := c.Append("s", "agent", "second", "", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(open); !os.IsNotExist(err) {
		t.Errorf("old path recreated: %v", err)
	}
	p, err := c.Close("s")
	if err != nil || filepath.Base(p) != "2026-11-30_002.md" {
		t.Fatalf("close: %s %v", p, err)
	}
	l, _ := s.Read(p)
	if l.Meta.Value("session_id") != "2026-11-30_002" || len(l.Blocks) != 1 || l.Blocks[0].Text != "second" {
		t.Errorf("new log: %+v", l)
	}
	a, _ := s.Read(arch)
	if a.Status() != StatusProcessed || a.Blocks[0].Text != "first" || !a.Archived {
		t.Errorf("archived log: %v %+v", a.Meta.Keys(), a.Blocks)
	}
	for _, bad := range []string{"", "../knowledge/x/SKILL.md", "/etc/passwd", filepath.Join(s.st.MemoryDir(), "about_me.md"), "archived/2026-11-30_001.md"} {
		if _, err := s.MarkProcessed(bad); err == nil {
			t.Errorf("MarkProcessed(%q) accepted", bad)
		}
	}
}

func TestPythonLogs(t *testing.T) {
	s, clock := pyLogs(t)
	pend, err := s.Pending()
	if err != nil {
		t.Fatal(err)
	}
	if len(pend) != 2 || filepath.Base(pend[0]) != "2026-11-29_001.md" || filepath.Base(pend[1]) != "2026-11-29_002.md" {
		t.Fatalf("pending %v", pend)
	}
	l, err := s.Read("2026-11-29_001.md")
	if err != nil {
		t.Fatal(err)
	}
	if l.ChatID() != "123-456" || len(l.Blocks) != 4 || l.Blocks[3].Text != "[x] y is how I write checkboxes" || l.Blocks[0].Speaker != "alice" {
		t.Errorf("python log: %s %+v", l.ChatID(), l.Blocks)
	}
	if l.Blocks[2].Result != "ok ⏎ id=pi-20261128-001" {
		t.Errorf("tool result %q", l.Blocks[2].Result)
	}
	legacy, _ := s.Read("2026-11-29_002.md")
	if len(legacy.Blocks) != 2 {
		t.Errorf("legacy blocks %+v", legacy.Blocks)
	}
	p, err := s.MarkProcessed("session-log/2026-11-29_002.md")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Read(p)
	if got.Status() != StatusProcessed || got.Meta.Value("session_id") != "2026-11-29_002" || len(got.Blocks) != 2 {
		t.Errorf("legacy processed: %v %+v", got.Meta.Keys(), got.Blocks)
	}
	// A new session on 2026-11-29 would not reuse 001/002: numbering counts archived logs too.
	*clock = time.Date(2026, 11, 29, 12, 0, 0, 0, time.Local)
	c := s.Capture()
	if _, err := c.Append("x", "user", "hi", "", "", ""); err != nil {
		t.Fatal(err)
	}
	np, _ := c.Close("x")
	if filepath.Base(np) != "2026-11-29_003.md" {
		t.Errorf("new log %s", np)
	}
}

func TestCaptureConcurrent(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	var wg sync.WaitGroup
	const sessions, msgs = 8, 200
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < msgs; j++ {
				if _, err := c.Append(fmt.Sprint("s", i), "user", fmt.Sprintf("message %d from %d", j, i), "", "", ""); err != nil {
					t.Error(err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	if n := c.CloseAll(); n != sessions {
		t.Errorf("CloseAll = %d", n)
	}
	files, _ := s.Files(t.Context(), false)
	count := map[string]int{}
	for _, f := range files {
		l, _ := s.Read(f)
		count[l.ChatID()] += len(l.Blocks)
	}
	for i := 0; i < sessions; i++ {
		if count[fmt.Sprint("s", i)] != msgs {
			t.Errorf("session %d has %d blocks", i, count[fmt.Sprint("s", i)])
		}
	}
}

// TestCaptureBoundsEveryField checks that no field a host supplies can grow
// a log without bound: labels, tool calls and reasons are capped like
// messages and tool results, and an absurd session id is refused.
func TestCaptureBoundsEveryField(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	huge := strings.Repeat("标签x", 200000) // 600k runes
	if _, err := c.Append("s1", "user", huge, huge, huge, huge); err != nil {
		t.Fatal(err)
	}
	if err := c.Tool("s1", huge, huge, huge); err != nil {
		t.Fatal(err)
	}
	path, err := c.Close("s1")
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.md"))
	total := 0
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		total += len(data)
		if _, err := frontmatter.Parse(l, data); err != nil {
			t.Fatalf("capped log does not parse: %v", err)
		}
	}
	// labels and reason ~200-300 runes each, message and call ~4000, result 300; ≤ 3 bytes a rune.
	if total > 40<<10 {
		t.Fatalf("logs hold %d bytes: some field was not capped", total)
	}
	for _, id := range []string{"", "  ", strings.Repeat("x", SessionIDMaxBytes+1)} {
		if _, err := c.Append(id, "user", "hi", "", "", ""); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Append(sessionId of %d bytes) = %v, want memory.ErrInvalid", len(id), err)
		}
		if err := c.Tool(id, "c", "r", ""); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Tool(sessionId of %d bytes) = %v, want memory.ErrInvalid", len(id), err)
		}
	}
}

// TestCaptureDropsInvisible: controls and format characters a terminal or
// the dreaming model would act on never reach a log, in any field; tab and
// newline stay, a CR becomes a newline.
func TestCaptureDropsInvisible(t *testing.T) {
	const dirty = "a\x00b\x1b[31mc\x1b[0m\rd\u200be\u202ef\x7f\u009b\ufeff"
	tests := []struct {
		name  string
		write func(c *Capture) error
		want  string // the field as it reads in the log
	}{
		{"message", func(c *Capture) error {
			_, err := c.Append("s1", "user", dirty+"\n\tnext", "", "", "")
			return err
		}, "ab[31mc[0m\ndef\n\tnext"},
		{"speaker", func(c *Capture) error {
			_, err := c.Append("s1", "user", "hi", "", "group", dirty)
			return err
		}, "[user:ab31mc0m ⏎ def]"}, // brackets are the speaker's delimiters
		{"user and chat type", func(c *Capture) error {
			_, err := c.Append("s1", "user", "hi", dirty, dirty, "")
			return err
		}, "user: \"ab[31mc[0m ⏎ def\"\nchat_id: s1\nchat_type: \"ab[31mc[0m ⏎ def\"\n"},
		{"tool call, result, reason", func(c *Capture) error {
			return c.Tool("s1", dirty, dirty, dirty)
		}, "reason: ab[31mc[0m ⏎ def\ncall: ab[31mc[0m ⏎ def\nresult: ab[31mc[0m ⏎ def\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestLogs(t).Capture()
			if err := tc.write(c); err != nil {
				t.Fatal(err)
			}
			path, err := c.Close("s1")
			if err != nil {
				t.Fatal(err)
			}
			got := testutil.ReadFile(t, path)
			if i := strings.IndexFunc(got, func(r rune) bool {
				return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
			}); i >= 0 {
				t.Errorf("log holds %q at %d:\n%q", got[i:i+1], i, got)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("log does not hold %q:\n%s", tc.want, got)
			}
		})
	}
}

// TestRotatedLogReadyWhenListed: whoever lists or archives logs right after
// the Append that rotated a live session's log sees that log finalised
// (status, message_count) and can archive it at once, although rotation
// finalises the full log in the background (Pending and MarkProcessed
// settle first).
func TestRotatedLogReadyWhenListed(t *testing.T) {
	for round := 0; round < 20; round++ {
		s := newTestLogs(t)
		c := s.Capture()
		var rotated string
		for i := 0; rotated == "" && i < 100; i++ {
			if _, err := c.Append("s", "user", strings.Repeat("y", 3000), "", "", ""); err != nil {
				t.Fatal(err)
			}
			if pending, err := s.Pending(); err != nil {
				t.Fatal(err)
			} else if len(pending) > 0 {
				rotated = pending[0]
			}
		}
		if rotated == "" {
			t.Fatal("no rotation")
		}
		l, err := s.Read(rotated)
		if err != nil {
			t.Fatal(err)
		}
		if l.Status() != StatusPending || l.Meta.Value("message_count") != fmt.Sprint(len(l.Blocks)) {
			t.Fatalf("listed before finalised: status %q, count %q, blocks %d", l.Status(), l.Meta.Value("message_count"), len(l.Blocks))
		}
		// Rotate again and archive at once: MarkProcessed waits for the finalisation too.
		for i := 0; i < 10; i++ {
			if _, err := c.Append("s", "user", strings.Repeat("z", 3000), "", "", ""); err != nil {
				t.Fatal(err)
			}
		}
		pending, err := s.Pending()
		if err != nil || len(pending) < 2 {
			t.Fatalf("pending %v %v", pending, err)
		}
		for _, p := range pending {
			if _, err := s.MarkProcessed(p); err != nil {
				t.Fatalf("archive %s: %v", p, err)
			}
		}
		if _, err := c.Close("s"); err != nil {
			t.Fatal(err)
		}
	}
}
