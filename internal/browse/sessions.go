package browse

import (
	"container/list"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/textcut"
)

// What the ring keeps. It lives in this process only, and that is enough:
// the tab shows the live session, whose hints and tool calls all pass through
// this sidecar; a restarted sidecar starts a new ring, and what a past
// session kept is in its session log and the dream that read it.
const (
	// MaxSessionEvents is the most events one session keeps (the newest):
	// a long session makes a few hints and recalls per turn.
	MaxSessionEvents = 200
	// MaxSessions is how many sessions are kept, least recently used first out:
	// one per open chat tab, with room to spare.
	MaxSessions = 64
	// MaxSessionIDBytes bounds a session id a caller names.
	MaxSessionIDBytes = 256
	// maxEventText bounds an event's text and query (a hint is a few lines;
	// a query is what the model asked).
	maxEventText = 4 << 10
	// maxEventItems bounds an event's items (recall returns at most 20).
	maxEventItems = 20
)

// Event is one thing memory did in a session: a hint the gate gave, a
// recall a tool ran, an intention a tool added or closed.
type Event struct {
	Time  time.Time   `json:"time"`
	Kind  string      `json:"kind"` // hint | recall | intention
	Tool  string      `json:"tool"` // assoc.thought, assoc.action or the work tool's name
	Query string      `json:"query"`
	Text  string      `json:"text"`
	Items []EventItem `json:"items"`
}

// EventItem is one memory an event surfaced, with why.
type EventItem struct {
	Name  string  `json:"name"`
	Path  string  `json:"path"`
	Score float64 `json:"score"`
	Why   string  `json:"why"`
}

// Sessions is the bounded per-session ring of events; safe for concurrent use.
type Sessions struct {
	mu  sync.Mutex
	lru *list.List               // of *sessionRing, most recent at the front
	by  map[string]*list.Element // session id → its element
}

type sessionRing struct {
	id     string
	events []Event // oldest first, at most MaxSessionEvents
}

// NewSessions returns an empty ring.
func NewSessions() *Sessions {
	return &Sessions{lru: list.New(), by: map[string]*list.Element{}}
}

// Add records ev for session id ("" or an over-long id is not recorded).
func (s *Sessions) Add(id string, ev Event) {
	if id == "" || len(id) > MaxSessionIDBytes {
		return
	}
	ev.Text, ev.Query = textcut.ClipBytes(ev.Text, maxEventText, "…"), textcut.ClipBytes(ev.Query, maxEventText, "…")
	if len(ev.Items) > maxEventItems {
		ev.Items = ev.Items[:maxEventItems]
	}
	if ev.Items == nil {
		ev.Items = []EventItem{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.by[id]
	if ok {
		s.lru.MoveToFront(el)
	} else {
		el = s.lru.PushFront(&sessionRing{id: id})
		s.by[id] = el
		if s.lru.Len() > MaxSessions {
			old := s.lru.Back()
			s.lru.Remove(old)
			delete(s.by, old.Value.(*sessionRing).id)
		}
	}
	r := el.Value.(*sessionRing)
	r.events = append(r.events, ev)
	if len(r.events) > MaxSessionEvents {
		r.events = append(r.events[:0:0], r.events[len(r.events)-MaxSessionEvents:]...)
	}
}

// Events returns session id's events, newest first (empty, never nil).
func (s *Sessions) Events(id string) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Event{}
	el, ok := s.by[id]
	if !ok {
		return out
	}
	evs := el.Value.(*sessionRing).events
	for i := len(evs) - 1; i >= 0; i-- {
		out = append(out, evs[i])
	}
	return out
}
