package main

import (
	"context"
	"io"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/somni-dev/somni/internal/mcpserver"
	"github.com/somni-dev/somni/internal/sidecar"
)

// serveMCP serves one MCP client on stdio until it disconnects or a signal:
// the same sidecar over the same data dir as serve, with MCP in front of
// the method table instead of the DSH host's JSON-RPC.
func serveMCP(o *options, stdin io.Reader, stdout io.Writer, logger *slog.Logger) int {
	log := logger.With(sidecar.LoggerKey, "somni.main")
	stdout = protocolOut(stdout, log)
	// "host" means the client's model here: there is no DSH host to ask.
	if o.cfg.LLM == "host" {
		o.cfg.HostModel = mcpserver.NewSamplingBackend()
	}
	srv, err := sidecar.New(o.cfg)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	defer func() {
		if err := srv.Close(); err != nil {
			log.Warn("close", "err", err)
		}
	}()
	if _, err := srv.RecoverCrashed(); err != nil {
		log.Warn("recovering session logs left open by a crash", "err", err)
	}
	ms, err := mcpserver.New(mcpserver.Options{Sidecar: srv, LLM: o.cfg.LLM, Logger: logger, Now: o.cfg.Now})
	if err != nil {
		log.Error("cannot start the MCP server", "err", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Info("mcp server ready", "version", sidecar.Version, "data_dir", srv.DataDir(), "llm", o.cfg.LLM, "embed", o.cfg.Embed.Provider)
	if err := ms.Run(ctx, mcpserver.NewStdioTransport(stdin, stdout, logger.With(sidecar.LoggerKey, "somni.mcp"))); err != nil {
		log.Error("mcp server stopped", "err", err)
		return 1
	}
	log.Info("stopping", "why", "client disconnected or signal")
	return 0
}
