package sidecar

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// InstallReport is what `doctor` says about the install itself: the binary,
// the embedder it really got (model and ONNX Runtime files included) and
// whether the data directory takes writes.
type InstallReport struct {
	Version  string    `json:"version"`
	Binary   string    `json:"binary"`
	Platform string    `json:"platform"`
	Embed    EmbedInfo `json:"embed"`
	Findings []Finding `json:"-"`
	// Verbose has Lines name the embedder by its id and the files it
	// loaded, as well as in words.
	Verbose bool `json:"-"`
}

// installProbeTimeout bounds the model load and one embedding; USE-lite
// loads in about a second on the 2-core CI machine.
const installProbeTimeout = time.Minute

// CheckInstall builds the configured embedder, embeds one probe text with
// it, and checks the data directory is writable. Every problem is a Finding
// of kind "install" naming the file concerned.
func CheckInstall(ctx context.Context, cfg Config) InstallReport {
	rep := InstallReport{Version: Version, Platform: runtime.GOOS + "-" + runtime.GOARCH}
	rep.Binary, _ = os.Executable()
	problem := func(path, format string, args ...any) {
		rep.Findings = append(rep.Findings, Finding{Path: path, Kind: "install", Reason: fmt.Sprintf(format, args...)})
	}
	emb, err := embed.New(cfg.Embed, cfg.Logger)
	if err != nil {
		rep.Embed = DescribeEmbedder(cfg.Embed.Provider, nil)
		problem(cfg.Embed.ModelDir, "embedder: %v", err)
	} else {
		defer emb.Close()
		ctx, cancel := context.WithTimeout(ctx, installProbeTimeout)
		defer cancel()
		if _, err := emb.Embed(ctx, []string{"install check"}); err != nil {
			problem(cfg.Embed.ModelDir, "embedder %s cannot embed: %v", emb.ID(), err)
		}
		rep.Embed = DescribeEmbedder(cfg.Embed.Provider, emb)
		if rep.Embed.Degraded != "" {
			problem(rep.Embed.ModelDir, "%s", rep.Embed.Degraded)
		}
	}
	// A check, not a first use: doctor never creates the data dir.
	if fi, err := os.Stat(cfg.DataDir); err != nil || !fi.IsDir() {
		problem(cfg.DataDir, "data dir is missing or not a directory")
	} else if f, err := os.CreateTemp(cfg.DataDir, ".doctor-*"); err != nil {
		problem(cfg.DataDir, "data dir is not writable: %v", err)
	} else {
		f.Close()
		os.Remove(f.Name())
	}
	return rep
}

// Lines renders the report for a person, one fact per line. The embedder
// is named in words ("local (USE-lite + CC-CEDICT), live"): its id
// (local:use-lite+dense2+cedict1:hash-v2-256) reads like the hash
// fallback to anyone who has not seen the code, so it and the files
// loaded come with Verbose only.
func (r InstallReport) Lines() []string {
	e := r.Embed
	lines := []string{fmt.Sprintf("install: somni-sidecar %s (%s, ONNX Runtime via %s) at %s", r.Version, r.Platform, e.Runtime, r.Binary)}
	label := e.Label
	if label == "" { // the embedder could not be built
		label = "none built (configured: " + e.Provider + ")"
	}
	switch {
	case !r.Verbose:
		lines = append(lines, "install: embedder "+label)
	case e.ModelDir != "":
		lines = append(lines, fmt.Sprintf("install: embedder %s [%s], model %s, runtime %s", label, e.ID, e.ModelDir, e.RuntimeLib))
	default:
		lines = append(lines, fmt.Sprintf("install: embedder %s [%s] (configured: %s)", label, e.ID, e.Provider))
	}
	return lines
}
