// Package memory owns somni's Markdown data directory: layout, atomic writes,
// safe names, lifecycle numbers and the entries the dreamer writes. Jobs of their own work over
// this store's files and lock: session logs (package sessionlog), dream diaries (dreamlog),
// intentions (intentions), the identity files (identity) and recall's usage journal (usage);
// package doctor checks them all.
//
// Layout (compatible with the Python dsh-somni sidecar; MemoryDir defaults to <data>/memory and
// SkillDir to <data>/skills):
//
//	memory/knowledge/<name>/SKILL.md              knowledge (KindKnowledge)
//	memory/episodes/<name>/SKILL.md               episodes (KindEpisode); archived under episodes/archived/
//	memory/intentions/pi-YYYYMMDD-NNN/INTENT.md   intentions (package intentions); closed ones under intentions/archived/<id>/
//	memory/session-log/YYYY-MM-DD_NNN.md          captured conversations (package sessionlog); processed ones under session-log/archived/
//	memory/dream-log/YYYY-MM-DD_dream_NNN.md      dream diaries (package dreamlog; never overwritten)
//	memory/about_me.md, memory/users/<id>/about_user.md (package identity; legacy memory/about_user.md = user "default")
//	memory/.usage.log                             recall's usage journal (package usage)
//	memory/archived/<name>/                       retired knowledge and learned skills
//	memory/proposals/<team>/<name>.md             shares waiting for a person (package share): no kind, never an entry
//	skills/agent_learned_skills/<name>/SKILL.md   skills the dreamer learned (KindSkill, Learned)
//	skills/<collection>/<name>/SKILL.md           other readable skills (never decayed, never shortened)
//	skills/base_skill/memory-extraction/SKILL.md  the user's override of the dreamer prompt (not a skill entry)
//
// Entries are classified by their location relative to these roots, never by substrings of the path.
//
// Files are read leniently (package frontmatter's Parse: YAML first, then the flat `key: value` form) and written in
// the compat key order with unknown keys kept in their order and bodies byte for byte (frontmatter.Render).
// A file that cannot be parsed becomes a Problem (logged once, naming path:line) and is never rewritten.
// Every file access goes through the store's safefs.FS (files.go; osfs_test.go fails on a direct os call): links never lead out of the memory
// and skill roots, nothing is written through a link, only regular files are read and each read is
// bounded (MaxEntryBytes, MaxLogBytes). Every write is atomic, passes the redaction in redactBeforeWrite (frontmatter.Redact:
// a header's comments and values with their keys in view, the body as text),
// and every rewrite is a compare-and-swap on the bytes read (RewriteLocked in lifecycle.go, header patching
// in patch.go); the jobs over the store's files write through the same two (ReplaceLocked, RewriteLocked)
// under the same lock (Lock).
//
// Files, by job:
//
//	layout.go                           the directory layout above, computed once in Open (Store.dirs),
//	                                    and classify: an entry's kind from its location
//	store.go, entry.go, fields.go       Open, Scan/Load/List/Find/Save; Entry and its typed accessors
//	                                    (Score, Created, Related, Tags, When, AppliesWhen, Supersedes …): the only
//	                                    code that knows where a field lives, so index and sidecar never parse
//	files.go, names.go, patch.go        atomic writes, MoveToFreeName (the one archive move),
//	                                    NextDailyNumber (the one NNN of session logs, dream logs, intentions),
//	                                    SafeName, NameWithoutSecrets (the one check of every name or id
//	                                    that becomes a path or a header id), header patching
//	lifecycle.go                        lifecycle numbers, RecordUsage/DecayAll, RecallChange (what one
//	                                    journalled recall hit does), RewriteLocked: the one compare-and-swap rewrite
//	ops.go                              CreateKnowledge (CheckKnowledge: its checks alone)/SupersedeKnowledge/UpdateKnowledge/CreateSkill/UpdateSkill/
//	                                    Archive/RecordEpisode/ListItems/ReadItem/FindDuplicate for the dreamer,
//	                                    each write taking one input struct of its kind (KnowledgeInput, SkillInput,
//	                                    KnowledgeUpdate, SkillUpdate, EpisodeInput); NewEntry (a Draft
//	                                    stamped with the compat keys); Editor (by path, for a person's edits)
//	restore.go                          Editor.RestoreEntry: an archived entry back among the active ones
//	audit.go                            Audit/CheckFile/Incomplete: what the boundary refuses and whether one
//	                                    file parses, for package doctor (internal/doctor), which checks
//	                                    the store through its exported API and words every finding `doctor` reports
//	dirlock.go                          the data directory's write lock and dream lock (package filelock)
//
// Dates are written and read with the layouts of package dates (dates.Layout, dates.TimeLayout).
package memory
