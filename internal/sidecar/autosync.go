package sidecar

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/gitsync"
)

// Automatic sync: once a data dir is under sync (`somni-sidecar sync
// init`), the server runs gitsync rounds by itself — after the start-up
// sync, after a dream changed memory, and every Config.SyncInterval —
// on a background goroutine of its own. Nothing on a turn's path waits
// for one, so a slow or failing remote delays no hint, recall or
// capture. What a round brings in reaches the index through its watcher
// and the index sync that follows a round that received anything. A
// failure is logged once until it changes.
const (
	// DefaultSyncInterval is how often a server under sync runs a round
	// when nothing else asks for one: often enough that a note made on
	// another machine arrives within a coffee break, seldom enough that a
	// remote on the other side of the world costs nothing noticeable (a
	// round that has nothing to send is one fetch).
	DefaultSyncInterval = 5 * time.Minute
	// syncRoundBound bounds one automatic round; gitsync bounds each git
	// call itself, this bounds their sum (a push retried after a merge).
	syncRoundBound = 3 * time.Minute
	// syncAfterDream lets the dream's last writes and its index sync settle
	// before the round that carries them away.
	syncAfterDream = 2 * time.Second
)

// autoSync runs a server's automatic rounds over one data dir.
type autoSync struct {
	dir      string
	interval time.Duration // < 0: never
	log      *slog.Logger
	now      func() time.Time
	// ready closes when the server's start-up index sync is done: the
	// first round waits for it, so it shares no cores with the start
	ready <-chan struct{}
	// received brings the index up to date after a round brought files in
	received func(ctx context.Context)

	// clones are the team repositories somni cloned (team pools of
	// package team), each synced by a round of its own after this data
	// dir's; teamSaid is what each last said, so a failure is logged once.
	clones   map[string]string // team name → clone dir
	teamSaid map[string]string

	kick chan struct{} // a round is wanted soon (buffered 1)
	mu   sync.Mutex    // guards last
	last SyncOutcome
}

// newAutoSync is the automatic sync of the server s over its data dir.
func newAutoSync(s *Server) *autoSync {
	a := &autoSync{dir: s.store.DataDir(), interval: s.cfg.SyncInterval, log: s.log, now: s.now,
		ready: s.firstSync, received: func(ctx context.Context) { s.syncIndex(ctx, "git sync") },
		clones: map[string]string{}, teamSaid: map[string]string{}, kick: make(chan struct{}, 1)}
	for _, p := range s.pools {
		if p.Clone != "" {
			a.clones[p.Name] = p.Clone
		}
	}
	return a
}

// SyncOutcome is how the server's last automatic round went.
type SyncOutcome struct {
	At     time.Time `json:"at"`
	Said   string    `json:"said"`           // the round's report, or the failure's sentence
	Failed bool      `json:"failed"`         // the round failed
	InStep bool      `json:"inStep"`         // this machine holds what the remote holds
	Kind   string    `json:"kind,omitempty"` // what went wrong, when it failed
}

// Last is the last automatic round's outcome; zero when none ran.
func (a *autoSync) Last() SyncOutcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// soon asks for a round soon (after a dream).
func (a *autoSync) soon() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// underSync reports whether `sync init` set the data dir up, without
// running git: a data dir a person keeps in git by hand is not pushed by
// a server that was never told to.
func underSync(dataDir string) bool { return gitsync.Configured(dataDir) }

// run is the automatic sync's loop; it returns when ctx ends.
func (a *autoSync) run(ctx context.Context) {
	interval := a.interval
	if interval < 0 {
		return
	}
	if interval == 0 {
		interval = DefaultSyncInterval
	}
	select {
	case <-a.ready:
	case <-ctx.Done():
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		a.round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-a.kick:
			select { // a dream's writes settle first
			case <-time.After(syncAfterDream):
			case <-ctx.Done():
				return
			}
		}
	}
}

// round runs one round when the data dir is under sync, then one for
// each cloned team repository.
func (a *autoSync) round(ctx context.Context) {
	a.personal(ctx)
	for name, dir := range a.clones {
		a.team(ctx, name, dir)
	}
}

// team runs one round of a cloned team repository: what a teammate shared
// comes in, what was approved here goes out. Its outcome is logged (once
// while it fails the same way); the Health view's sync state stays the
// personal memory's.
func (a *autoSync) team(ctx context.Context, name, dir string) {
	rctx, cancel := context.WithTimeout(ctx, syncRoundBound)
	defer cancel()
	rep, err := gitsync.Round(rctx, dir, gitsync.WithLogger(a.log))
	if ctx.Err() != nil {
		return
	}
	said := rep.String()
	if err != nil {
		said = err.Error()
		if a.teamSaid[name] != said {
			a.log.Warn("team sync failed; the team's entries here stay recallable, the next round retries", "team", name, "err", said)
		}
	} else if rep.Sent > 0 || rep.Received > 0 {
		a.log.Info("team sync: "+said, "team", name, "sent", rep.Sent, "received", rep.Received)
	}
	a.teamSaid[name] = said
	if err == nil && rep.Received > 0 {
		a.received(ctx)
	}
}

// personal runs one round of the data dir when it is under sync, then
// brings the index up to date with what it received.
func (a *autoSync) personal(ctx context.Context) {
	if !underSync(a.dir) {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, syncRoundBound)
	defer cancel()
	rep, err := gitsync.Round(rctx, a.dir, gitsync.WithLogger(a.log))
	if ctx.Err() != nil {
		return // closing: the next start completes what was cut short
	}
	out := SyncOutcome{At: a.now(), Said: rep.String(), InStep: rep.InStep}
	if err != nil {
		if gitsync.KindOf(err) == gitsync.KindNotInitialised {
			return
		}
		out.Failed, out.Said, out.Kind = true, err.Error(), kindName(gitsync.KindOf(err))
	}
	a.mu.Lock()
	prev := a.last
	a.last = out
	a.mu.Unlock()
	switch {
	case out.Failed && (!prev.Failed || prev.Said != out.Said):
		a.log.Warn("sync failed; memory here is intact and keeps working, the next round retries", "err", out.Said)
	case out.Failed:
		a.log.Debug("sync still failing", "err", out.Said)
	default:
		a.log.Info("sync: "+out.Said, "sent", rep.Sent, "received", rep.Received)
	}
	if err == nil && rep.Received > 0 {
		a.received(ctx)
	}
}

// kindName names a gitsync failure for SyncOutcome.Kind.
func kindName(k gitsync.Kind) string {
	switch k {
	case gitsync.KindGitMissing:
		return "git-missing"
	case gitsync.KindUnreachable:
		return "unreachable"
	case gitsync.KindAuth:
		return "auth"
	case gitsync.KindRejected:
		return "rejected"
	case gitsync.KindTimeout:
		return "timeout"
	case gitsync.KindBlocked:
		return "blocked"
	}
	return "other"
}
