// Package usage is recall's usage journal. Recall does not rewrite the
// files it returns: each hit is one line appended to memory/.usage.log
// ("<day>\t<m|s>\t<path in the memory or skill root>"), and the next dream
// folds the journal into the entries' score, stability and last_used with
// the lifecycle's own numbers (memory.RecallChange), one compare-and-swap
// rewrite per entry under the store's write lock. A claim no fold can read
// is moved aside to .usage.quarantine-<time> for doctor to name. It works
// over the memory store's files and lock, as package sessionlog does.
//
// Files, by job:
//
//	usage.go   Journal (Of: a store's journal), its names and bounds, NoteRecall:
//	           recall's one O_APPEND write of its hits
//	fold.go    Fold: claiming the journal by rename, folding a claim (one left by
//	           a killed fold first), quarantining an unreadable one
//	files.go   what doctor says of the journal's files: Files, Trouble, Hits,
//	           Quarantined
package usage
