package intentions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/memtest"
	"github.com/somni-dev/somni/internal/testutil"
)

func TestIntentionIDsNeverReused(t *testing.T) {
	clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.Local)
	s, dir := memtest.PyStore(t, &clock)
	ctx := context.Background()
	it, err := Of(s).Add(ctx, Input{What: "Renew TLS cert", Due: "2026-12-02", Cue: "tls，证书", Priority: "high"})
	if err != nil {
		t.Fatal(err)
	}
	if it.ID != "pi-20261128-003" { // 001 active and 002 archived are both taken
		t.Fatalf("id %s", it.ID)
	}
	if _, err := Of(s).Complete(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	arch := testutil.ReadFile(t, filepath.Join(dir, "memory", "intentions", "archived", it.ID, "INTENT.md"))
	if !strings.HasSuffix(arch, "- closed: 2026-11-28 (completed)\n") || !strings.Contains(arch, "- cue: tls, 证书\n") {
		t.Errorf("archived intention:\n%s", arch)
	}
	next, err := Of(s).Add(ctx, Input{What: "Another"})
	if err != nil || next.ID != "pi-20261128-004" || next.Priority != "mid" {
		t.Fatalf("next id %+v %v", next, err)
	}
	if _, err := Of(s).Cancel(ctx, next.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(s).Cancel(ctx, next.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("cancel twice: %v", err)
	}
	for _, bad := range []string{"../x", "pi-2026-1", "", "pi-20261128-001/../../x"} {
		if _, err := Of(s).Complete(ctx, bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("complete %q: %v", bad, err)
		}
	}
	for _, in := range []Input{{What: ""}, {What: "x", Due: "tomorrow"}, {What: "x", Priority: "urgent"}} {
		if _, err := Of(s).Add(ctx, in); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("add %+v: %v", in, err)
		}
	}
	hist, _ := Of(s).Archived(ctx)
	if len(hist) != 3 {
		t.Errorf("archived %d", len(hist))
	}
}

func TestSelectIntentions(t *testing.T) {
	today := time.Date(2026, 11, 30, 0, 0, 0, 0, time.Local)
	mk := func(id, due, prio string, cues ...string) *Intention {
		return &Intention{ID: id, Due: due, Priority: prio, Cues: cues}
	}
	var all []*Intention
	for i := 0; i < 12; i++ {
		all = append(all, mk("overdue-"+string(rune('a'+i)), "2026-11-2"+string(rune('0'+i%10)), "mid"))
	}
	all = append(all,
		mk("today", "2026-11-30", "mid"),
		mk("in1", "2026-12-01", "mid"), mk("in3", "2026-12-03", "mid"), mk("in4", "2026-12-04", "low", "dns"),
		mk("far-high", "2027-01-01", "high", "域名"), mk("far-low", "2027-02-01", "low", "域名"), mk("far-mid", "2027-03-01", "mid", "域名"), mk("far-mid2", "2027-03-02", "mid", "域名"),
	)
	for i := 0; i < 7; i++ {
		all = append(all, mk("undated-"+string(rune('a'+i)), "", "mid", "never-matches"))
	}
	all = append(all, mk("bad-date", "someday", "mid"))
	sortIntentions(all)
	sel := selectIntentions(all, today, "域名 和 DNS 的事")
	if len(sel.Due) != CapDue || sel.Due[0].ID != "overdue-a" {
		t.Errorf("due %d first %s", len(sel.Due), sel.Due[0].ID)
	}
	if ids(sel.Upcoming) != "in1,in3" {
		t.Errorf("upcoming %s", ids(sel.Upcoming))
	}
	if len(sel.Undated) != CapUndated {
		t.Errorf("undated %d", len(sel.Undated))
	}
	if ids(sel.Cued) != "far-high,far-mid,far-mid2" {
		t.Errorf("cued %s", ids(sel.Cued))
	}
	if !sel.CuedIDs["in4"] || !sel.CuedIDs["far-low"] {
		t.Errorf("cued ids %v", sel.CuedIDs)
	}
	// Due after the window and shown nowhere else (cued ones past the cue cap included).
	if ids(sel.Later) != "in4,far-low" || sel.LaterMore != 0 {
		t.Errorf("later %s +%d", ids(sel.Later), sel.LaterMore)
	}
	// Without a message nothing is cued: the first three later ones, the rest counted.
	if quiet := selectIntentions(all, today, ""); ids(quiet.Later) != "in4,far-high,far-low" || quiet.LaterMore != 2 {
		t.Errorf("later without cues %s +%d", ids(quiet.Later), quiet.LaterMore)
	}
	onlyLater := selectIntentions([]*Intention{mk("far", "2027-06-01", "mid")}, today, "")
	if onlyLater.Empty() || len(onlyLater.Later) != 1 {
		t.Errorf("a lone far intention must still show: %+v", onlyLater)
	}
	if empty := selectIntentions(nil, today, "x"); !empty.Empty() {
		t.Error("empty selection not empty")
	}
}

func sortIntentions(all []*Intention) {
	// Same order List produces.
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && intentionLess(all[j], all[j-1]); j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
}

func intentionLess(a, b *Intention) bool {
	da, db := a.Due, b.Due
	if da == "" {
		da = "9999-99-99"
	}
	if db == "" {
		db = "9999-99-99"
	}
	if da != db {
		return da < db
	}
	return a.ID < b.ID
}

func ids(its []*Intention) string {
	var out []string
	for _, it := range its {
		out = append(out, it.ID)
	}
	return strings.Join(out, ",")
}

func TestFixtureIntentionsAndExpiry(t *testing.T) {
	s, dir := memtest.PyStore(t, nil)
	ctx := context.Background()
	sel, err := Of(s).Select(ctx, testutil.FixedNow, "记得续费域名")
	if err != nil {
		t.Fatal(err)
	}
	if ids(sel.Upcoming) != "pi-20261128-001" || ids(sel.Undated) != "pi-20261129-001" || !sel.CuedIDs["pi-20261128-001"] {
		t.Errorf("selection %+v", sel)
	}
	expired, err := Of(s).ExpireIdle(ctx, testutil.FixedNow.AddDate(0, 0, 29))
	if err != nil || len(expired) != 1 || expired[0] != "pi-20261128-001" {
		t.Fatalf("expired %v %v (29-day-idle one must stay)", expired, err)
	}
	arch := testutil.ReadFile(t, filepath.Join(dir, "memory", "intentions", "archived", "pi-20261128-001", "INTENT.md"))
	if !strings.Contains(arch, "(auto_expired)") {
		t.Errorf("no auto_expired note:\n%s", arch)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory", "intentions", "pi-20261129-001")); err != nil {
		t.Error("younger intention expired")
	}
}
