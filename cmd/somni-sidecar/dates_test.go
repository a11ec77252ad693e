package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A fixed instant that is still 2026-12-01 in UTC but already Wednesday
// 2026-12-02 in Shanghai: the sidecar must count days in the user's zone.
const testNow = "2026-12-01T22:30:00Z"

type promptTexts struct{ Identity, Intentions, Discipline string }

func (s *proc) prompt(msg string) promptTexts {
	var pb promptTexts
	params := map[string]any{}
	if msg != "" {
		params["currentMessage"] = msg
	}
	s.call("prompt.build", params, &pb)
	return pb
}

// TestPromptStatesToday: the system prompt gives date, weekday and zone even
// with nothing in memory, from --timezone, else SOMNI_TIMEZONE, else the
// machine's zone; and it explains the hint marker.
func TestPromptStatesToday(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"flag", []string{"--timezone", "Asia/Shanghai"}, nil, "Today is Wednesday, 2026-12-02 (Asia/Shanghai, UTC+08:00)."},
		{"env", nil, []string{"SOMNI_TIMEZONE=America/Los_Angeles"}, "Today is Tuesday, 2026-12-01 (America/Los_Angeles, UTC-08:00)."},
		{"flag beats env", []string{"--timezone", "Europe/Berlin"}, []string{"SOMNI_TIMEZONE=America/Los_Angeles"}, "Today is Tuesday, 2026-12-01 (Europe/Berlin, UTC+01:00)."},
		{"machine zone", nil, []string{"TZ=Asia/Kolkata", "SOMNI_TIMEZONE="}, "Today is Wednesday, 2026-12-02 (Asia/Kolkata, UTC+05:30)."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, t.TempDir(), tc.args, append([]string{"SOMNI_TEST_NOW=" + testNow}, tc.env...)...)
			pb := s.prompt("")
			if pb.Intentions != "" || pb.Identity != "" {
				t.Fatalf("empty memory yet identity %q intentions %q", pb.Identity, pb.Intentions)
			}
			if first, _, _ := strings.Cut(pb.Discipline, "\n"); first != tc.want {
				t.Fatalf("first discipline line %q, want %q", first, tc.want)
			}
			mustContain(t, "discipline", pb.Discipline, "【记忆提示】[memory]", "stale", "verify before acting")
		})
	}
}

// TestTimezoneFlagRejectsUnknownZone: a typo in the zone stops the start
// with a message naming the flag, rather than running on the wrong day.
func TestTimezoneFlagRejectsUnknownZone(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  []string
	}{
		{"flag", []string{"--timezone", "Mars/Olympus"}, nil},
		{"env", nil, []string{"SOMNI_TIMEZONE=Mars/Olympus"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binPath, append([]string{"--data-dir", t.TempDir(), "--embed", "off"}, tc.args...)...)
			cmd.Env = append(os.Environ(), tc.env...)
			out, err := cmd.CombinedOutput()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 2 {
				t.Fatalf("exit %v, want 2; output:\n%s", err, out)
			}
			mustContain(t, "startup error", string(out), "--timezone", `"Mars/Olympus"`, "IANA")
		})
	}
}

// TestDueDatesInWords: add_intention takes what people say, resolves it on
// the sidecar's clock in the user's zone, writes the ISO date and says which
// day it understood; a phrase that is no date is refused and writes nothing.
func TestDueDatesInWords(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, []string{"--timezone", "Asia/Shanghai"}, "SOMNI_TEST_NOW="+testNow) // Wednesday 2026-12-02 there
	cases := []struct {
		what, due, echo string
	}{
		{"call the bank", "tomorrow", `due Thu 2026-12-03 from "tomorrow"`},
		{"send the report", "next friday", `due Fri 2026-12-04 from "next friday"`},
		{"renew the cert", "in 3 days", `due Sat 2026-12-05 from "in 3 days"`},
		{"pay rent", "end of month", `due Thu 2026-12-31 from "end of month"`},
		{"团队周会", "下周五", `due Fri 2026-12-11 from "下周五"`},
		{"买票", "明天", `due Thu 2026-12-03 from "明天"`},
		{"交报告", "三天后", `due Sat 2026-12-05 from "三天后"`},
		{"book flights", "2026-12-24", "due Thu 2026-12-24;"},
	}
	for _, tc := range cases {
		out := s.tool("add_intention", map[string]any{"what": tc.what, "due": tc.due})
		mustContain(t, "add_intention due "+tc.due, out, tc.echo)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "memory/intentions/*/INTENT.md"))
	if len(files) != len(cases) {
		t.Fatalf("%d intention files, want %d", len(files), len(cases))
	}
	body, err := os.ReadFile(filepath.Join(dir, "memory/intentions/pi-20261202-002/INTENT.md"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "stored due", string(body), "- due: 2026-12-04\n", "- created: 2026-12-02\n")

	for _, bad := range []string{"when pigs fly", "next friday or so"} {
		code, msg := s.callErr("tools.call", map[string]any{"name": "add_intention", "args": map[string]any{"what": "x", "due": bad}})
		if code != -32602 {
			t.Fatalf("due %q: code %d %s", bad, code, msg)
		}
		mustContain(t, "error for "+bad, msg, `argument "due"`, "did not understand", "YYYY-MM-DD", "next friday", "明天")
	}
	if after, _ := filepath.Glob(filepath.Join(dir, "memory/intentions/*/INTENT.md")); len(after) != len(cases) {
		t.Fatalf("a refused due date wrote an intention: %d files", len(after))
	}
}

// TestDueDatesOutOfRange: a number no calendar holds, a day more than two
// centuries away or a day already gone is refused with a message saying which, and nothing is
// written; nothing wraps around to a date that looks plausible.
func TestDueDatesOutOfRange(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, []string{"--timezone", "UTC"}, "SOMNI_TEST_NOW=2026-12-02T09:00:00Z")
	cases := []struct{ due, want string }{
		{"in 99999999999 days", "too far"},
		{"in 3652060 weeks", "too far"},
		{"in 9223372036854775807months", "too far"},
		{"in 99999999999hours", "too far"},
		{"99999999999天后", "too far"},
		{"in 300 years", "too far"},
		{"10000-01-01", "did not understand"},
		{"0000-01-01", "too far"},
		{"0001-01-01", "too far"},
		{"9999-12-31", "too far"},
		{"2026-12-01", "in the past"},
		{"2 weeks ago", "in the past"},
		{"yesterday", "in the past"},
		{"三天前", "in the past"},
	}
	for _, tc := range cases {
		code, msg := s.callErr("tools.call", map[string]any{"name": "add_intention", "args": map[string]any{"what": "x", "due": tc.due}})
		if code != -32602 {
			t.Errorf("due %q: code %d %s, want -32602", tc.due, code, msg)
			continue
		}
		mustContain(t, "error for "+tc.due, msg, `argument "due"`, tc.want)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "memory/intentions/*/INTENT.md")); len(files) != 0 {
		t.Fatalf("a refused due date wrote %d intentions", len(files))
	}
	mustContain(t, "today is due", s.tool("add_intention", map[string]any{"what": "today", "due": "today"}), "due Wed 2026-12-02")
	mustContain(t, "a lifetime ahead", s.tool("add_intention", map[string]any{"what": "far", "due": "in 150 years"}), "due ", "2176-12-02")
}

// TestLaterIntentionsLine: intentions due after the three-day window are
// named on one short line (the next three, then a count), so the model knows
// they exist without a cue.
func TestLaterIntentionsLine(t *testing.T) {
	s := start(t, t.TempDir(), []string{"--timezone", "Asia/Shanghai"}, "SOMNI_TEST_NOW="+testNow) // Wednesday 2026-12-02
	for _, a := range []map[string]any{
		{"what": "send the report", "due": "next friday"}, // 12-04: coming up
		{"what": "dentist", "due": "2027-01-05"},
		{"what": "renew cert", "due": "2026-12-18"},
		{"what": "团队周会", "due": "下周五"}, // 12-11
		{"what": "pay rent", "due": "end of month"},
		{"what": "file taxes", "due": "2027-03-31", "cue": "taxes"},
	} {
		s.tool("add_intention", a)
	}
	pb := s.prompt("")
	mustContain(t, "intentions", pb.Intentions,
		"send the report (due 2026-12-04)",
		"Later: 团队周会 (12-11), renew cert (12-18), pay rent (12-31), +2 more (list_intentions)\n")
	// A cue still lifts a far one into its own group and off the Later line.
	pb = s.prompt("did you do the taxes?")
	mustContain(t, "cued", pb.Intentions, "file taxes (due 2027-03-31, mentioned now)", "+1 more (list_intentions)")
}

// TestEpisodeRangeInWords: search_episodes' since/until take the same words
// and echo the days they became.
func TestEpisodeRangeInWords(t *testing.T) {
	s := start(t, t.TempDir(), []string{"--timezone", "Asia/Shanghai"}, "SOMNI_TEST_NOW="+testNow) // Wednesday 2026-12-02
	out := s.tool("search_episodes", map[string]any{"since": "3 days ago", "until": "昨天"})
	mustContain(t, "range", out, `since Sun 2026-11-29 from "3 days ago"`, `until Tue 2026-12-01 from "昨天"`)
	out = s.tool("search_episodes", map[string]any{"since": "上周"})
	mustContain(t, "上周", out, `since Mon 2026-11-23 from "上周"`)
	code, msg := s.callErr("tools.call", map[string]any{"name": "search_episodes", "args": map[string]any{"since": "tomorrow", "until": "yesterday"}})
	if code != -32602 || !strings.Contains(msg, "is after until") {
		t.Fatalf("swapped range: %d %s", code, msg)
	}
	code, msg = s.callErr("tools.call", map[string]any{"name": "search_episodes", "args": map[string]any{"since": "the other day"}})
	if code != -32602 || !strings.Contains(msg, `argument "since"`) || !strings.Contains(msg, "did not understand") {
		t.Fatalf("bad since: %d %s", code, msg)
	}
}

// TestBoundedRecall: a question that limits itself in time ranks the
// episodes inside the bound above the ones placed outside it, through
// recall_memories and the CLI; a bound weighs, it does not remove.
func TestBoundedRecall(t *testing.T) {
	dir := t.TempDir()
	for _, ep := range []struct{ name, when, text string }{
		{"move-hangzhou", "2025-01-10", "我们搬家到了杭州。We moved house to Hangzhou."},
		{"move-shanghai", "2026-02-20", "我们搬家到了上海。We moved house to Shanghai."},
		{"move-beijing", "2026-03-15", "我们搬家到了北京。We moved house to Beijing."},
		{"move-shenzhen", "2026-05-02", "我们搬家到了深圳。We moved house to Shenzhen."},
	} {
		p := filepath.Join(dir, "memory", "episodes", ep.name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("---\nname: %s\ndescription: %s\ntype: episode\n---\n%s\n\n- when: %s\n", ep.name, ep.text, ep.text, ep.when)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := start(t, dir, []string{"--embed", "off"}, "SOMNI_TEST_NOW="+testNow)
	for _, tc := range []struct {
		query       string
		want, below []string // every want entry shown above every below one
	}{
		{"只看 2026 年 3 月以前，我们搬家去了哪里？", []string{"move-hangzhou", "move-shanghai"}, []string{"move-beijing", "move-shenzhen"}},
		{"where did we move house after March 2026?", []string{"move-shenzhen"}, []string{"move-hangzhou", "move-shanghai", "move-beijing"}},
		// Traditional characters, Simplified notes: the bound word 以後 is read as 以后
		{"2026 年 3 月以後，我們搬家去了哪裡？", []string{"move-shenzhen"}, []string{"move-hangzhou", "move-shanghai", "move-beijing"}},
		{"where did we move house?", []string{"move-hangzhou", "move-shanghai", "move-beijing", "move-shenzhen"}, nil},
	} {
		out := s.tool("recall_memories", map[string]any{"query": tc.query})
		mustContain(t, tc.query, out, tc.want...)
		for _, w := range tc.want {
			for _, b := range tc.below {
				if i := strings.Index(out, b); i >= 0 && i < strings.Index(out, w) {
					t.Errorf("%q: %s lies outside the bound, shown above %s:\n%s", tc.query, b, w, out)
				}
			}
		}
	}
	out, code := runCLI(t, "--data-dir", dir, "--embed", "off", "recall", "where did we move house before March 2026?")
	if i := strings.Index(out, "move-beijing"); code != 0 || !strings.Contains(out, "move-shanghai") ||
		i >= 0 && i < strings.Index(out, "move-shanghai") {
		t.Errorf("CLI recall (exit %d):\n%s", code, out)
	}
}
