package dream

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/toolspec"
)

// Size and count bounds of one dream. Past each one the dreamer does
// something the model or the user can act on instead of carrying the
// runaway value along; what happens is said per constant.
const (
	// MaxBodyBytes bounds a body or a whole document the model writes
	// (knowledge and skill bodies, the diary, about_me, a user profile).
	// A distilled entry is a few KiB and recall shows 400 characters of
	// it; 64 KiB still holds a long procedure, while a pasted log (the
	// 10 MB body that was accepted) is refused with a tool error telling
	// the model to summarise.
	MaxBodyBytes = 64 << 10
	// MaxFieldBytes bounds every one-line argument of a write tool (names,
	// types, descriptions, an episode's what/objects/tags, a merge note).
	// A description is one sentence; 2 KiB is about 680 CJK characters,
	// several times any real one. Past it: a tool error.
	MaxFieldBytes = 2 << 10
	// MaxReadRunes bounds what one tool answer puts into the prompt
	// (read_item, read_session_log, review_dream_history, a duplicate's
	// text). 64 Ki runes is at most ~64k tokens of CJK (~16k of ASCII):
	// it fits the 128k-token window the dreamer's models have next to the
	// system prompt and the history, where a 100 MB file was sent whole.
	// Past it the answer is clipped with a marker the model can read
	// (present.ClipAnswer).
	MaxReadRunes = 64 << 10
	// MaxToolCallsPerStep bounds the tool calls executed from one model
	// turn. A well-behaved turn batches a handful (the scripted full
	// dream has at most three; the refusal test batches 27); 32 leaves
	// room for a big merge while a turn of 1000 calls, which ran for
	// minutes (measured in docs/ARCHITECTURE.md, Measurements), runs 32 and the rest are answered
	// with a refusal the model can act on.
	MaxToolCallsPerStep = 32
	// MaxToolCallsPerDream bounds the tool calls of one dream. A log
	// costs about ten (read, mark, episode, a few entries) and a dream
	// takes at most DefaultMaxLogs by default, plus diary and decay: 300
	// is five times that. Past it the dream stops as interrupted, with a
	// reason that names the limit; what it wrote is kept.
	MaxToolCallsPerDream = 300
	// MaxReplyBytes bounds one raw llm.chat result the dreamer accepts.
	// The largest useful reply is MaxToolCallsPerStep calls each carrying
	// a MaxBodyBytes body (1 MiB); 16 MiB is well above that, so a 10 MB
	// body still reaches the tool layer and gets its actionable refusal,
	// and far below the 64 MiB frame limit a reply would otherwise fill.
	// Past it the model call fails and the dream ends with error.
	MaxReplyBytes = 16 << 20
	// maxConflictsListed bounds the sync-conflict pairs a dream's first
	// message lists for reconciling. Two machines rarely change the same
	// lines of more than a few entries between rounds; 20 pairs cost
	// about 40 tool calls to settle, well inside MaxToolCallsPerDream,
	// and the rest wait for the next dream (the count is always given).
	maxConflictsListed = 20
	// maxFailedWritesShown bounds how many failed writes a result names;
	// the count is always given, the first few say why.
	maxFailedWritesShown = 5
	// maxFailureRunes bounds the reason quoted for one failed write.
	maxFailureRunes = 160
)

// fieldCheck is one argument of a write tool with its bound.
type fieldCheck struct {
	name  string
	value string
	max   int
	// token marks an identifier-like value (name, type, salience, user id):
	// a control character in it is a mistake or an injection, never data.
	token bool
}

func lineArg(name, value string) fieldCheck {
	return fieldCheck{name: name, value: value, max: MaxFieldBytes}
}
func tokenArg(name, value string) fieldCheck { return fieldCheck{name, value, MaxFieldBytes, true} }
func bodyArg(name, value string) fieldCheck {
	return fieldCheck{name: name, value: value, max: MaxBodyBytes}
}

// checkFields returns the first argument over its bound as an *ArgError,
// which toolspec names with the tool (the model sees which argument and
// what to do), or nil.
func checkFields(fields ...fieldCheck) error {
	for _, f := range fields {
		if n := len(f.value); n > f.max {
			hint := "shorten it"
			if f.max == MaxBodyBytes {
				hint = "summarise: keep what a later session needs, not the raw text"
			}
			return &toolspec.ArgError{Arg: f.name, Msg: fmt.Sprintf("is %d bytes; the limit is %d — %s", n, f.max, hint)}
		}
		if f.token {
			if i := strings.IndexFunc(f.value, unicode.IsControl); i >= 0 {
				r, _ := utf8.DecodeRuneInString(f.value[i:])
				return &toolspec.ArgError{Arg: f.name, Msg: fmt.Sprintf("has a control character (%U at byte %d); use plain text on one line", r, i)}
			}
		}
	}
	return nil
}

// The write tools of knowledge, skills and profiles check sizes first, then
// that nothing in them is an instruction to the agent (see directive.go).

func (a createKnowledgeArgs) check() error {
	return checkAll(kindKnowledge, tokenArg("name", a.Name), tokenArg("entry_type", a.EntryType), lineArg("description", a.Description), bodyArg("body", a.Body),
		tokenArg("supersedes", a.Supersedes))
}

func (a updateKnowledgeArgs) check() error {
	return checkAll(kindKnowledge, tokenArg("name", a.Name), lineArg("description", a.Description), bodyArg("body", a.Body))
}

func (a createSkillArgs) check() error {
	return checkAll(kindSkill, tokenArg("name", a.Name), lineArg("description", a.Description), bodyArg("body", a.Body))
}

func (a updateSkillArgs) check() error {
	return checkAll(kindSkill, tokenArg("name", a.Name), lineArg("description", a.Description), bodyArg("body", a.Body), lineArg("merge_note", a.MergeNote))
}

// checkAll is checkFields, then checkDirectives over the free-text fields
// (tokens such as names are too short to carry an instruction).
func checkAll(kind memoryKind, fields ...fieldCheck) error {
	if err := checkFields(fields...); err != nil {
		return err
	}
	var text []fieldCheck
	for _, f := range fields {
		if !f.token {
			text = append(text, f)
		}
	}
	return checkDirectives(kind, text...)
}

func (a recordEpisodeArgs) check() error {
	return checkFields(lineArg("what", a.What), tokenArg("outcome", a.Outcome), lineArg("objects", a.Objects), lineArg("tools", a.Tools),
		lineArg("tags", a.Tags), tokenArg("salience", a.Salience), lineArg("when", a.When), tokenArg("source", a.Source))
}

func (a dreamLogArgs) check() error { return checkFields(bodyArg("content", a.Content)) }

func (a aboutMeArgs) check() error { return checkAll(kindProfile, bodyArg("content", a.Content)) }

func (a aboutUserArgs) check() error {
	return checkAll(kindProfile, bodyArg("content", a.Content), tokenArg("user_id", a.UserID))
}

// checker is implemented by the arguments of the write tools; handler runs
// it before the tool, so no over-limit value reaches memory.
type checker interface{ check() error }

// satAdd adds token counts without wrapping: a host reporting 2^62 tokens
// twice must total "a lot", not a negative number. Negative counts (a
// backend's bug) add nothing.
func satAdd(a, b int) int {
	if b <= 0 {
		return a
	}
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
