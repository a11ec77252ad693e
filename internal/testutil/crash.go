package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// CrashRounds is the kill -9 harness of the crash tests: rounds times it
// runs the calling test again as a child process with envKey set to dir
// (the test sees it and turns into its writer loop), waits until ready
// reports the writer under way (at most 5 s) and a little longer each
// round, kills it with SIGKILL, and hands the round to check with the
// child's stderr.
func CrashRounds(t *testing.T, envKey, dir string, rounds int, ready func() bool, check func(round int, childStderr string)) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	for round := 0; round < rounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$")
		cmd.Env = append(os.Environ(), envKey+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !ready(); {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(20+round*15) * time.Millisecond)
		_ = cmd.Process.Kill() // SIGKILL: no deferred cleanup runs in the writer
		_ = cmd.Wait()
		check(round, stderr.String())
	}
}
