// Package intentions is the agent's prospective memory: the to-dos it should
// bring up (memory/intentions/pi-YYYYMMDD-NNN/INTENT.md), added by the
// add_intention tool, closed by complete/cancel or a person's forget in the
// Memory tab, expired after IntentionIdleDays idle by a dream, and picked for
// each prompt. It works over the memory store's files and lock (package
// memory: its boundary, write lock, clock, compare-and-swap rewrite and the
// archive move), as package sessionlog does; the file format is the store's
// front-matter with the intention's fields as `- key: value` body lines,
// compatible with the Python sidecar. Ids are never reused: the day's next
// number counts the archived ones too.
//
// Files, by job:
//
//	intentions.go   Intention, Input, Book (Of: a store's intentions), the id
//	                shape (ValidID), reading: List (open, by due date) and Archived
//	add.go          Add: a new intention under a fresh id
//	close.go        closing one: Complete, Cancel, CancelFile (a person's forget,
//	                compared under the lock) and ExpireIdle, each noting
//	                `- closed: <date> (<reason>)` and moving the folder to
//	                intentions/archived/
//	selection.go    what the prompt shows: Selection (due, upcoming, undated,
//	                cued, later) and its caps
package intentions
