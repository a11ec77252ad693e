package present

// HintMark opens every associative hint line: the compat tag, then the
// marker for readers who do not read Chinese. The system prompt names it
// when it says how to read hint lines, so both spell it from here.
const HintMark = HintTag + MemoryMark

// HintLine is one associative hint line:
// "【记忆提示】[memory] <name>: <description>", then ｜适用：… / ｜不适用：…
// when the note says when it applies, and its file in parentheses (n.Path
// as the reader should see it). The memory's text is defanged (one line,
// no tag of ours inside), so a note cannot start a line of its own nor
// fake a second hint.
func HintLine(n Note) string {
	line := HintMark + " " + ShowName(n.Name) + ": " + Defang(n.Description)
	if n.AppliesWhen != "" {
		line += "｜适用：" + Defang(n.AppliesWhen)
	}
	if n.NotAppliesWhen != "" {
		line += "｜不适用：" + Defang(n.NotAppliesWhen)
	}
	return line + " (" + Defang(n.Path) + ")"
}
