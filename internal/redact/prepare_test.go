package redact

import (
	"flag"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

var freshProcess = flag.Bool("redact.fresh", false, "TestTextWhilePreparing: this process is the fresh one")

// TestTextWhilePreparing: texts that arrive while the rules compile in the
// background (Prepare, as the sidecar starts it after its first reply) wait
// for them and come out redacted, every secret of the corpus as in
// TestRedactCorpusSecrets. The rules compile once per process, so the check
// runs in a fresh test process where nothing has compiled them yet.
func TestTextWhilePreparing(t *testing.T) {
	if !*freshProcess {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTextWhilePreparing$", "-test.count=1", "-redact.fresh")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("fresh process: %v\n%s", err, out)
		}
		return
	}
	lines := testutil.SecretCorpus(t, "secrets.jsonl")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); Prepare() }()
	leaked := make([]bool, len(lines))
	for i, l := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leaked[i] = strings.Contains(Text(l.Text), l.Secret)
		}()
	}
	wg.Wait()
	testutil.CheckLeaks(t, "Text while preparing", lines, func(l testutil.SecretLine) bool {
		for i := range lines {
			if lines[i].Name == l.Name {
				return leaked[i]
			}
		}
		return true
	})
}
