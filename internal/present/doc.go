// Package present owns what the model is shown of memory: recalled text
// framed as data, names on lines we start, quoted notes, hint lines, the
// work tools' answers, the compaction block's lines and the layout of
// recall results. Assoc, digest, dream and sidecar build their
// model-visible text from it (the ranking hands it hits through rank.Shown), so
// a rule about how memory reads to a model (a tag a note must not fake, a
// name that must not pass for a header) has one place. It imports no
// package of somni but textcut, lazyre and dates, so the dreamer uses it
// without pulling in the index; that is why Hit, Note, Intention and Turn
// are its own types rather than rank's, intentions' or sessionlog's.
//
// Map:
//   - frame.go   recalled memory framed as data: Defang (no controls or
//     invisible characters, one line, no tag of ours), QuoteNote (a line that
//     reads as a role header, disguised or not, is marked), the NotesAreData
//     line, the hint tag and memory mark.
//   - names.go   names on a line we start: ShowName for a name only read
//     (defanged), ShowExact for one the model hands back to a tool
//     (quoted, reversible).
//   - hint.go    associative hint lines (HintLine) and the mark they open
//     with, which the system prompt names (HintMark).
//   - answer.go  a tool answer clipped to the prompt's budget, saying so,
//     with no controls or invisible characters (ClipAnswer).
//   - render.go  recall hits as numbered notes (Note, Hit, RenderHits) and
//     why each matched (Hit.Why).
//   - tools.go   the work tools' answers: recall and search results
//     (RecallAnswer, SearchAnswer, Notes), a caller's words quoted back
//     (Quote), filters and days as understood (Filters, DayEcho), a share
//     proposed (ShareProposed).
//   - intentions.go  intentions as the tools show them (Intention,
//     IntentionLine, IntentionList) and the intention tools' answers.
//   - conversation.go  search_recent_conversation's answer: past turns
//     quoted and defanged under their part's title (ConversationAnswer).
//   - compaction.go  the compaction block (package digest chooses what it
//     keeps): its framing line, section titles and lines (CompactionBlock).
package present
