// Package sessionlog owns memory/session-log: capturing live conversations
// into YYYY-MM-DD_NNN.md files, listing the pending ones for a dream,
// reading and parsing them, archiving them under session-log/archived/, and
// finalising the ones a killed process left open. It works over the memory
// store's files and locks (the Store interface: its safefs boundary, write
// lock, clock, logger and naming rules); the file format is the store's
// front-matter. Every captured block and header value is redacted (package
// redact) as it is written, so the store does not rescan a log on rewrite.
//
// Files, by job:
//
//	sessionlog.go       Logs and the Store it needs; limits, status values, file names
//	capture.go          Logs.Capture(): Append/Tool/Close/CloseAll, the per-session writers
//	capture_file.go     opening, creating and finalising a log file; the writer's lock
//	capture_pool.go     the bound on open logs (maxOpenLogs): the least recently used
//	                    closed, file work in flight bounded
//	capture_resume.go   reopening a log closed by that bound; resuming an earlier
//	                    process's log, found through a per-day index
//	livemark.go         session-log/.live: marks of live logs closed by that bound, so other
//	                    processes still see them held
//	capture_rotate.go   rotation off the append path: the successor made ahead, the full log
//	                    finalised in the background (settle waits for it)
//	files.go            Pending/MarkProcessed/Files: listing and archiving
//	parse.go            Parse/Read for the dreamer and conversation search
//	text.go             how captured text is cleared of invisible characters (Append and Tool
//	                    clear theirs first), redacted, capped and kept on one line
//	recover.go          Capture.RecoverCrashed: crashed-log recovery
package sessionlog
