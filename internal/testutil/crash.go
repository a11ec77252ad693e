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
// reports the writer under way and a little longer each round, kills it
// with SIGKILL, and hands the round to check with the child's stderr.
// ready should mean a write was acknowledged, not that a file appeared: on
// a loaded machine the child can be killed between the two. The wait for
// it is a liveness bound (a child that never gets under way fails the
// test), long enough for a machine at load 20 to start a test binary.
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
		for deadline := time.Now().Add(time.Minute); !ready(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("round %d: the writer did not get under way in a minute (stderr: %s)", round, stderr.String())
			}
		}
		time.Sleep(time.Duration(20+round*15) * time.Millisecond)
		_ = cmd.Process.Kill() // SIGKILL: no deferred cleanup runs in the writer
		_ = cmd.Wait()
		check(round, stderr.String())
	}
}
