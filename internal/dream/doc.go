// Package dream is the "sleep" half of somni: a ReAct loop that distils pending
// session logs into knowledge, episodes, skills and identity files by letting a
// chat model call a fixed set of validated memory tools.
//
// The sidecar wires it once and serves sleep.run / sleep.cancel / sleep.status:
//
//	backend := dream.ChatBackend(dream.NewHostBackend(conn)) // reverse llm.chat
//	// or: b, err := dream.NewOpenAIBackend(dream.OpenAIConfigFromEnv(os.Getenv)); err ⇒ llm "none"
//	cfg := dream.Config{Store: store, Backend: backend, OnChanged: syncIndex,
//		MaxLogs: maxLogs, MaxIters: maxIters} // cmd reads SLEEP_MAX_LOGS, SLEEP_MAX_ITERS
//	d := dream.New(cfg)
//	res := d.Run(ctx, trigger) // JSON-marshals to the compat sleep.run result
//	d.Cancel()                 // from another goroutine; Run returns "interrupted"
//	st := d.Status(ctx)        // {sleeping, pendingLogs, llm}
//
// Every size and count a model or a file could blow up is bounded in
// limits.go (write-tool fields, tool calls per turn and per dream, what a
// read puts into the prompt, the llm.chat result); each constant says what
// happens past it.
//
// Names in the prompt are shown by present.ShowExact, so the model can hand
// them back to a tool; read_item and read_session_log return the stored text
// unframed, and say why where they do (tools.go, sessionlogs.go).
//
// Files, by job:
//
//	dreamer.go               Config, New, Run/Cancel/Status: the ReAct loop, its statuses and usage
//	chat.go, openai.go       the ChatBackend: the host's reverse llm.chat, or an OpenAI-compatible API
//	conversation.go          context economy: older tool outputs stubbed past a token budget
//	prompt.go, prompts/      the system and first user message (embedded guidance, the user's override)
//	toolspecs.go             the dreamer's tool names, argument structs and schemas
//	tools.go                 the memory write and read tools over memory.Store
//	sessionlogs.go           pending session logs: read_session_log, mark_log_processed
//	dreamlogs.go             the dream diary: write_dream_log, review_dream_history
//	runlog.go                the run record: what each write tool changed (paths, unified diffs), kept by dreamlog
//	directive.go             telling an injected instruction from a procedure the user taught
//	limits.go                every bound (a tool answer past MaxReadRunes: present.ClipAnswer)
//	dreamtest/               a scripted fake chat model for tests
package dream
