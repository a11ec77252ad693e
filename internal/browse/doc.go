// Package browse is the sidecar's half of the web UI's Memory tab: what a
// person browsing memory sees and does, over the same store, boundary and
// search the agent uses. Paths on the wire are relative to the data
// directory (memory.Store.Rel); every one a caller gives is resolved here and
// read or written only through the store's boundary (package safefs), so no
// link leads out of the data directory. A mounted team pool's entries
// (package team) are listed, searched and read beside them, each named
// team:NAME/REL and read through the pool's own store; nothing here writes
// a pool — only an approved share does (package share).
//
// Files, by job:
//
//	browse.go    Browser, its bounds (one block, each with why), errors: ErrBadPath, Conflict
//	paths.go     a wire path → the store file it names, refused when it leaves the data directory
//	list.go      memory.list: entries by kind, tag and date, newest first or ranked by recall's search
//	read.go      memory.read: the text, its version token, front-matter, body
//	teams.go     the mounted team pools, read-only: their wire paths (team:NAME/REL), each entry's Origin, their listing and reads
//	strength.go  an entry's strength over time: its past from the lifecycle numbers and the usage
//	             journal, its future with the lifecycle's own decay (memory.Decayed)
//	edit.go      memory.write / memory.pin / memory.forget / memory.restore: compare-and-swap edits through memory.Editor
//	dreams.go    memory.dreams: each dream's run record (what the dreamer saw change) and its diary
//	revert.go    memory.revertDream: a dream's changes undone, whole or entry by entry, each a compare-and-swap
//	             against what the dream wrote (an entry changed since is kept, and the answer says so)
//	sessions.go  memory.session: what one live session was hinted and recalled (a bounded ring)
//	logtail.go   memory.health's log tail: the last lines of logs/somni.log, through the boundary, redacted
package browse
