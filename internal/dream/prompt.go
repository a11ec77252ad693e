package dream

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/textcut"
)

//go:embed prompts/*.md
var promptFS embed.FS

func mustPrompt(name string) string {
	b, err := promptFS.ReadFile("prompts/" + name)
	if err != nil {
		panic(fmt.Sprintf("dream: embedded prompt %s missing: %v", name, err))
	}
	return string(b)
}

var (
	systemTemplate = mustPrompt("system.md")
	// DefaultStrategy is the embedded extraction guidance (with its front-matter).
	DefaultStrategy = mustPrompt("memory-extraction.md")
)

// renderSystemPrompt fills the system template.
func renderSystemPrompt(strategy string, knowledgeCount int, trigger string, start time.Time) string {
	return strings.NewReplacer(
		"{{strategy}}", strategy,
		"{{knowledge_count}}", fmt.Sprint(knowledgeCount),
		"{{trigger}}", trigger,
		"{{start_time}}", start.Format(time.RFC3339),
	).Replace(systemTemplate)
}

// logListHeader starts the list of logs in the user message; ListedLogPaths
// parses what follows it.
const logListHeader = "Session logs to process, oldest first / 待处理的 session-log（旧→新）:"

// renderUserPrompt lists the logs of this dream, then the tail of the last diary.
func renderUserPrompt(logs []logRef, trigger string, now time.Time, lastDreamName, lastDream string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trigger: %s. Now: %s. %d log(s); process them strictly in this order, one at a time.\n",
		trigger, now.Format(time.RFC3339), len(logs))
	b.WriteString("触发方式：" + trigger + "。请严格按顺序逐个处理，不要跳跃。\n\n")
	b.WriteString(logListHeader + "\n")
	for _, l := range logs {
		b.WriteString("- " + present.ShowExact(l.Path) + "\n")
	}
	if lastDream != "" {
		const maxHint = 1000 // bytes
		lastDream = textcut.ClipBytes(lastDream, maxHint, "\n…(truncated)")
		fmt.Fprintf(&b, "\nLast dream diary (%s), for adapting the strategy / 最近一次梦境日志：\n```\n%s\n```\n", present.ShowExact(lastDreamName), lastDream)
	}
	return b.String()
}

// renderConflicts asks the dream to reconcile the entries git sync kept
// side by side (at most maxConflictsListed, the count always said); "" when
// there are none.
func renderConflicts(cs []conflict) string {
	if len(cs) == 0 {
		return ""
	}
	entries := fmt.Sprintf("%d entries", len(cs))
	if len(cs) == 1 {
		entries = "1 entry"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nTwo machines changed the same lines of %s, and sync kept the other machine's text beside it as a sibling entry (conflicts_with names the original). "+
		"After the logs, reconcile each pair: read both with read_item, write what is true now into the original with update_knowledge (a fact that is only in the sibling and stands on its own may become an entry of its own), then archive_item the sibling.\n",
		entries)
	b.WriteString("同步冲突留下的并列条目：读两份，把正确内容合并进原条目，再归档并列条目。\n")
	for i, c := range cs {
		if i == maxConflictsListed {
			fmt.Fprintf(&b, "- … and %d more, for the next dream\n", len(cs)-i)
			break
		}
		fmt.Fprintf(&b, "- %s conflicts with %s\n", present.ShowExact(c.sibling), present.ShowExact(c.of))
	}
	return b.String()
}

// ListedLogPaths returns the log paths listed in a dream's first user message;
// fake models use it to refer to "the first log".
func ListedLogPaths(userMessage string) []string {
	_, after, ok := strings.Cut(userMessage, logListHeader+"\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(after, "\n") {
		p, ok := strings.CutPrefix(line, "- ")
		if !ok {
			break
		}
		out = append(out, present.UnshowExact(p))
	}
	return out
}

// strategy returns the extraction guidance: the user's override
// (skills/base_skill/memory-extraction/SKILL.md) when it exists and has text,
// else the embedded default. It is read per dream so edits apply at once.
func (tb *toolbox) strategy() string {
	p := tb.st.StrategyOverridePath()
	data, err := tb.st.StrategyOverride()
	switch {
	case err == nil:
		if s := frontmatter.Strip(string(data)); s != "" {
			return s
		}
		tb.log.Warn("strategy override is empty; using the built-in guidance", "path", p)
	case !errors.Is(err, fs.ErrNotExist):
		tb.log.Warn("cannot read strategy override; using the built-in guidance", "path", p, "err", err)
	}
	return frontmatter.Strip(DefaultStrategy)
}
