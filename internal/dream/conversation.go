package dream

import "unicode/utf8"

// Context-economy numbers from the compat notes: past CtxBudgetTokens the older
// tool outputs are stubbed, keeping the last CtxKeepRecent messages verbatim.
const (
	CtxBudgetTokens = 24000
	CtxKeepRecent   = 6
	// minCompactLen: shorter tool outputs cost less than the stub that replaces them.
	minCompactLen = 200
)

const (
	processedLogStub = "(session log already processed and archived; its raw text was removed from the conversation to save tokens — 该日志已处理归档，原文已从上下文移除)"
	compactedStub    = "(older tool output omitted to save context; call the tool again if you really need it — 较早的工具输出已省略)"
)

// conversation is the message list of one dream with a cached per-message token
// estimate, so each step's budget check does not rescan the whole history.
type conversation struct {
	msgs  []Message
	toks  []int
	total int
	// logMsg maps a session log's key to the index of the tool message
	// holding its raw text.
	logMsg map[string]int
	// settled is how far compaction has looked: every message before it is
	// short, not a tool output, or already a stub, and contents only ever
	// shrink, so later passes start there instead of rescanning the history.
	settled int
}

func newConversation(capacity int) *conversation {
	return &conversation{
		msgs:   make([]Message, 0, capacity),
		toks:   make([]int, 0, capacity),
		logMsg: map[string]int{},
	}
}

func (c *conversation) add(m Message) int {
	t := messageTokens(m)
	c.msgs = append(c.msgs, m)
	c.toks = append(c.toks, t)
	c.total += t
	return len(c.msgs) - 1
}

func (c *conversation) setContent(i int, content string) {
	c.msgs[i].Content = content
	t := messageTokens(c.msgs[i])
	c.total += t - c.toks[i]
	c.toks[i] = t
}

// noteLogRead remembers where a log's raw text sits so it can be stubbed later.
func (c *conversation) noteLogRead(path string, idx int) { c.logMsg[path] = idx }

// stubProcessedLog replaces the raw text of a processed log with a short stub.
func (c *conversation) stubProcessedLog(path string) bool {
	idx, ok := c.logMsg[path]
	if !ok {
		return false
	}
	delete(c.logMsg, path)
	c.setContent(idx, processedLogStub)
	return true
}

// compact stubs older tool outputs, oldest first, until the estimate is back
// under budget. Only contents change: dropping messages would break the
// pairing between an assistant's tool_calls and the tool replies.
func (c *conversation) compact(budget, keepRecent int) int {
	if c.total <= budget {
		return 0
	}
	n := 0
	for ; c.settled < len(c.msgs)-keepRecent; c.settled++ {
		m := &c.msgs[c.settled]
		if m.Role != "tool" || len(m.Content) <= minCompactLen || m.Content == compactedStub || m.Content == processedLogStub {
			continue
		}
		c.setContent(c.settled, compactedStub)
		n++
		if c.total <= budget {
			c.settled++
			break
		}
	}
	return n
}

// messageTokens estimates what a message costs in the model's context.
func messageTokens(m Message) int {
	t := 4 + estimateTokens(m.Content) + estimateTokens(m.ReasoningContent)
	for _, tc := range m.ToolCalls {
		t += estimateTokens(tc.Function.Name) + estimateTokens(tc.Function.Arguments)
	}
	return t
}

// estimateTokens is a tokenizer-free estimate: about four bytes of ASCII per
// token, and one token per CJK or other non-ASCII character (a slight
// overestimate, which errs on the side of compacting earlier).
func estimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		other++
		i += size
	}
	return (ascii+3)/4 + other
}
