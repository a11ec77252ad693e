// Package memmerge merges one memory file three ways as what it is, a
// front-matter header and a Markdown body, for syncing the store between
// machines through git: git's line merge would put conflict markers into a
// memory file and let two machines' lifecycle numbers (score, stability,
// last_used …) fight over one line. Merge never returns a conflict marker:
// what cannot be merged is kept twice, ours in the entry and theirs in a
// sibling entry that names the entry it conflicts with, for the Memory tab
// to show and the next dream to reconcile.
//
// The header is merged key by key over the common base (rules.go states
// each key's rule and why); unknown keys keep their order and, when
// nothing changed them, their bytes (package frontmatter writes the
// header). The body is merged by `git merge-file -p`, run on three temp
// files: git is the sync engine anyway, so its maintained three-way merge
// is already on every machine that syncs and merges bodies exactly as a
// plain git merge of the same text would; the Go module proxy serves no
// maintained diff3 library (go-udiff, go-diff and go-difflib diff two
// texts only). When both sides changed the same lines, or a side's header
// cannot be read, or the file was added on both sides with different
// text, the entry keeps ours and theirs becomes the sibling, whole.
//
// Where a sibling goes (sibling.go), for a tree path P and h the first 8
// hex digits of the SHA-256 of their file:
//
//	<dir>/<folder>/SKILL.md  (knowledge, episodes, skills, archives)
//	    → <dir>/<folder>-conflict-h/SKILL.md, name: <name>-conflict-h:
//	      an entry of the same kind beside the entry
//	<mem>/about_me.md, <mem>/users/<id>/about_user.md, <mem>/about_user.md,
//	<mem>/intentions/[archived/]<id>/INTENT.md
//	    → <mem>/knowledge/<stem>-conflict-h/SKILL.md (stem about_me,
//	      about_user-<id>, about_user-default, <id>): a knowledge entry, since
//	      a second profile or an intention with an id outside
//	      pi-YYYYMMDD-NNN would be read by nothing or break
//	      complete_intention, while knowledge is listed, recalled and
//	      read by the dreamer
//	anything else (session and dream logs, notes)
//	    → <stem>-conflict-h<ext> beside the file
//
// The sibling's header is theirs with name set as above and
// conflicts_with naming the entry it conflicts with: the entry's name,
// or for a profile (whose name is a person's, not an entry's) its tree path.
//
// Map:
//
//	merge.go    Merge, Result, Sibling, MaxSideBytes: the sides read, the quick cases, the result written
//	rules.go    the header's key-by-key merge and its rules (dates, numbers, lists, the rest)
//	body.go     the body's three-way merge through git merge-file, line ends made to agree
//	sibling.go  where a sibling goes and what its header says
package memmerge
