package sessionlog

import (
	"fmt"
	"testing"
)

// openSessions opens n sessions named prefix-0… in c, each with a message.
func openSessions(t testing.TB, c *Capture, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := c.Append(fmt.Sprintf("%s-%d", prefix, i), "user", "hello", "", "", ""); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenSessionWorkIndependentOfLiveSessions opens sessions (their first
// message, which creates their log) beside 10 and beside 2,000 live ones.
// The work of an open is counted in allocations, not time: a listing of the
// folder or a pass over the sessions allocates for every entry it visits,
// so an open whose work grows with the live sessions shows here. Both must
// be the same order.
func TestOpenSessionWorkIndependentOfLiveSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2,000 logs")
	}
	tests := []struct {
		live int
	}{
		{10},
		{2000},
	}
	allocs := make([]float64, len(tests))
	for i, tc := range tests {
		c := newTestLogs(t).Capture()
		openSessions(t, c, "live", tc.live)
		n := 0
		allocs[i] = testing.AllocsPerRun(20, func() {
			n++
			if _, err := c.Append(fmt.Sprintf("new-%d", n), "user", "hello", "", "", ""); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("opening a session beside %d live ones: %.0f allocations", tc.live, allocs[i])
	}
	if allocs[1] > 2*allocs[0] {
		t.Errorf("opening a session beside %d live ones allocates %.0f times, beside %d %.0f: it grows with the live sessions",
			tests[1].live, allocs[1], tests[0].live, allocs[0])
	}
}

// BenchmarkOpenSession measures opening a session — its first message,
// which creates its log — beside 10 and beside 2,000 live sessions. Each
// new session is closed again outside the timer, so the live count holds.
func BenchmarkOpenSession(b *testing.B) {
	for _, live := range []int{10, 2000} {
		b.Run(fmt.Sprintf("live=%d", live), func(b *testing.B) {
			c := newTestLogs(b).Capture()
			openSessions(b, c, "live", live)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := fmt.Sprintf("new-%d", i)
				if _, err := c.Append(id, "user", "hello", "", "", ""); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := c.Close(id); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
