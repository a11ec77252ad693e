package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSync measures git sync as a second machine meets it, over 10k
// short notes (15 words, --embed off) and a bare repository on disk:
// first-sync-ms is `sync init` of a new machine against the remote that
// holds them (target ≤ 10 000), round-ms a `sync` that receives 10
// entries another machine changed (target ≤ 1 000), catchup-ms from that
// round's end to the running sidecar recalling the last changed entry
// (target ≤ 2 000). Medians of the iterations; each starts from a fresh
// remote, so the first push (not timed) is the laptop's whole memory.
func BenchmarkSync(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Fatalf("git is not installed: %v", err)
	}
	src := corpusOf(b, 10000, 15)
	var firsts, rounds, catchups []float64
	for b.Loop() {
		tmp := b.TempDir()
		remote, laptop, desktop := filepath.Join(tmp, "memory.git"), filepath.Join(tmp, "laptop"), filepath.Join(tmp, "desktop")
		benchRun(b, "", "git", "init", "-q", "--bare", remote)
		benchRun(b, "", "cp", "-r", src, laptop)
		os.Remove(filepath.Join(laptop, "index.sqlite")) // the laptop's own cache stays home anyway
		benchRun(b, "", benchBin(), "--data-dir", laptop, "sync", "init", remote)

		t0 := time.Now()
		benchRun(b, "", benchBin(), "--data-dir", desktop, "sync", "init", remote)
		firsts = append(firsts, ms(time.Since(t0)))

		side, _ := spawnLineEnv(b, syncEnv, benchBin(), append(sidecarArgs(desktop), "--sync-interval", "off")...)
		side.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"index.sync","params":{}}`)
		for i := range 10 {
			p := filepath.Join(laptop, "memory", "knowledge", fmt.Sprintf("entry-%05d", i*997), "SKILL.md")
			text, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, append(text, fmt.Sprintf("\nchanged on the laptop: zzchanged%d\n", i)...), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		benchRun(b, "", benchBin(), "--data-dir", laptop, "sync")

		t1 := time.Now()
		benchRun(b, "", benchBin(), "--data-dir", desktop, "sync")
		t2 := time.Now()
		rounds = append(rounds, ms(t2.Sub(t1)))
		for id := 2; ; id++ {
			reply := side.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools.call","params":{"name":"recall_memories","args":{"query":"zzchanged9","limit":3}}}`, id))
			if strings.Contains(reply, "entry-08973") {
				break
			}
			if time.Since(t2) > time.Minute {
				b.Fatalf("the running sidecar never recalled the synced change: %s", reply)
			}
			time.Sleep(20 * time.Millisecond)
		}
		catchups = append(catchups, ms(time.Since(t2)))
		side.stop()
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(median(firsts), "first-sync-ms")
	b.ReportMetric(median(rounds), "round-ms")
	b.ReportMetric(median(catchups), "catchup-ms")
}

// benchRun runs a command for a benchmark's set-up or measure, with git's
// user config kept out (syncEnv), and fails the benchmark on error.
func benchRun(b *testing.B, dir, name string, args ...string) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), syncEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
