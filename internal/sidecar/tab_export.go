package sidecar

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/somni-dev/somni/internal/export"
	"github.com/somni-dev/somni/internal/rpc"
)

// maxTabExport bounds the archive memory.export sends the tab: it travels
// base64 in one reply line (a third larger) under the line bound of
// package rpc, and through the host to the browser. A memory whose
// compressed Markdown is larger is exported with `somni-sidecar export`.
const maxTabExport = 32 << 20

// exportResult is memory.export's answer: the archive and what it holds.
type exportResult struct {
	Name    string `json:"name"`    // a file name for the download
	Files   int    `json:"files"`   // Markdown files in it
	Bytes   int64  `json:"bytes"`   // their size before compression
	Archive string `json:"archive"` // the .tar.gz, base64
}

// errTooBig stops an archive at maxTabExport.
var errTooBig = errors.New("archive over the tab's bound")

type boundedBuffer struct{ bytes.Buffer }

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxTabExport {
		return 0, errTooBig
	}
	return b.Buffer.Write(p)
}

// export is the personal memory's Markdown as package export writes it,
// for the tab to download (team pools are their repositories' to export).
func (t *tab) export(ctx context.Context, _ noParams) (any, error) {
	var buf boundedBuffer
	sum, err := export.Write(ctx, t.s.store, &buf)
	if errors.Is(err, errTooBig) {
		return nil, rpc.InvalidParams("the memory's archive is over %d MB, more than the tab downloads: run somni-sidecar export FILE", maxTabExport>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("memory.export: %w", err)
	}
	return exportResult{Name: "somni-memory-" + t.s.now().Format("2006-01-02") + ".tar.gz", Files: sum.Files, Bytes: sum.Bytes,
		Archive: base64.StdEncoding.EncodeToString(buf.Bytes())}, nil
}
