// Package worktools is what the model may call while it works: recall, the
// episode and knowledge searches, the search of past conversations and the
// intention tools. Each tool's argument struct is its schema; a handler
// resolves what the model said (a day in words, a types list), asks the
// index or the store, keeps what is worth showing and journals what recall
// used; package present writes every answer. The sidecar binds the tools
// to its store, session logs and index (Deps), adds share_memory beside
// them and serves them through tools.call, which the MCP server calls too;
// the CLI's recall parses types and keeps evident hits with the same code.
//
// Map:
//
//	tools.go         Env, Tracer, Deps and New; recall_memories, search_episodes, search_knowledge and the intention tools; Search (the Memory tab's too); the usage journal a recall feeds
//	conversation.go  search_recent_conversation over the live session logs, and Turns, the logs' turns (session.digest reads them too)
//	dates.go         day arguments in words, resolved on the server's clock and zone
//	recalltypes.go   the one parser of recall `types` (tools and the CLI)
//	evident.go       Evident: which ranked hits are worth showing (the tools and the CLI)
package worktools
