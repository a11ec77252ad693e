// Package doctor checks a data directory without changing it and reports
// what it finds (Finding): what `somni-sidecar doctor`, `doctor --json` and
// the web Memory tab's Health show. It reads only through the exported API
// of the store (package memory) and of the jobs over its files (identity,
// usage), so it sees the files exactly as every reader does: through the
// boundary, links out refused, never followed.
//
// Files, by job:
//
//	doctor.go     Finding and its one-line form; Check, the whole report sorted
//	              by path; one file's front-matter parse (checkParses)
//	entries.go    parsed entries: names used twice, `related:` links to
//	              nothing, missing parts, bad dates (CheckEntry, also the
//	              web tab's check of a hand edit)
//	identity.go   identity files that do not parse, profile folders under
//	              memory/users/ that no user id reads
//	state.go      the files that decide whether memory works: lock files that
//	              block writes or dreams, usage journals that lose recall hits,
//	              and the journal's one-line state (UsageSummary)
package doctor
