//go:build unix

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"

	"golang.org/x/sys/unix"
)

// watchMemProfile writes a heap profile to the file SOMNI_MEMPROFILE names
// each time the process gets SIGUSR1 (after a collection, so inuse_space is
// the live heap): `make bench` triage of where resident memory goes, taken
// at the moment the benchmark reads VmRSS rather than at exit, when the
// index is already closed.
func watchMemProfile() {
	p := os.Getenv("SOMNI_MEMPROFILE")
	if p == "" {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, unix.SIGUSR1)
	go func() {
		for range ch {
			runtime.GC()
			if f, err := os.Create(p); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			// beside it, the runtime's own account (heap in use, idle,
			// released, stacks): resident memory the profile cannot show
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			_ = os.WriteFile(p+".memstats", fmt.Appendf(nil,
				"HeapAlloc %d\nHeapInuse %d\nHeapIdle %d\nHeapReleased %d\nStackInuse %d\nSys %d\nNextGC %d\nNumGC %d\n",
				ms.HeapAlloc, ms.HeapInuse, ms.HeapIdle, ms.HeapReleased, ms.StackInuse, ms.Sys, ms.NextGC, ms.NumGC), 0o644)
		}
	}()
}
