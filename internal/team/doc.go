// Package team mounts a team's shared memory beside the personal one. A
// pool is a folder of somni-format entries under git (knowledge/<name>/
// SKILL.md, skills/<name>/SKILL.md, as in a data dir's memory/): either a
// folder of the project's own repository (e.g. <project>/.somni, reviewed
// in pull requests like code) or a team repository somni clones into the
// data dir (teams/<name>; the pool is its memory/ folder) and syncs like
// the personal memory (package gitsync: the same merge driver and secret
// scan). Recall reads every mounted pool through the same index as the
// personal memory; nothing writes a pool but an explicit share.
//
// Map:
//
//	doc.go     this map
//	team.go    Pool, names, the registry (teams.yml in the data dir): List, Add, Remove
//	pools.go   the pools of one process (registry and --team flags: Mounted), a pool opened with its store (Opened) and which one holds a path (Of), how a pool's entries are named (RelPath) and labelled (Origin, KeySharedBy)
package team
