// Package sidecar binds the JSON-RPC method table of the somni sidecar to
// memory, the recall index, association, the dreamer and the work tools
// (package worktools). The MCP server (internal/mcpserver) serves the same
// handlers.
//
// Map:
//
//	server.go        Config and Server: opening the store, the index and the dreamer; lifecycle
//	methods.go       the method table (ping, session.*, index.*, prompt.build, assoc.*, tools.*, sleep.*; memory.* from tab.go, team.list and share.* from share.go, profile.* and sleep.diaries from resources.go)
//	tools.go         the work tools (package worktools) bound to the server's store, logs and index, share_memory beside them; the tab's search
//	digest.go        session.digest: this session's memory for a compaction summary (internal/digest renders it)
//	tab.go           memory.*: the web Memory tab's methods, bound to package browse, the mounted team pools read-only beside the personal memory
//	tab_export.go    memory.export: the memory's archive (package export) for the tab to download, bounded
//	resources.go     profile.* and sleep.diaries: the identity files and dream diaries the MCP server offers beside the tools
//	share.go         the explicit share (package share): the share_memory tool when a team pool is mounted, team.list and share.*
//	autosync.go      rounds of git sync run by the server itself (package gitsync), never on a turn's path
//	prompt.go        prompt.build: identity, intentions and the discipline text
//	assoc.go         the hint gate bound to the index and the store
//	source.go        the index's view of the store (memory entries as index docs)
//	teams.go         the mounted team pools: the index reads them with the personal memory (recallSource), results name their origin (Origin)
//	doctor.go        `doctor`: a thin caller of memory's file checks
//	install.go       `doctor`'s install checks: binary, embedder, model, runtime, data dir
//	stats.go         `stats`
//	logging.go       the compat log line format on stderr, secrets redacted
package sidecar
