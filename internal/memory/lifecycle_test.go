package memory

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBirthScores(t *testing.T) {
	tests := []struct {
		salience string
		want     float64
	}{{"low", 0.4}, {"mid", 0.6}, {"medium", 0.6}, {"high", 0.8}, {"HIGH ", 0.8}, {"", 0.4}, {"bogus", 0.4}}
	for _, tt := range tests {
		if got := EpisodeBirthScore(tt.salience); !near(got, tt.want) {
			t.Errorf("EpisodeBirthScore(%q) = %v, want %v", tt.salience, got, tt.want)
		}
	}
	if SemanticBirthScore(true) != 0.5 || SemanticBirthScore(false) != 0.3 {
		t.Error("semantic birth scores")
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name            string
		stab            int
		score           float64
		lastUsed, today string
		wantStab        int
		wantScore       float64
	}{
		{"new day", 0, 0.5, "2026-11-01", "2026-11-02", 1, 0.7},
		{"never used", 2, 0.3, "", "2026-11-02", 3, 0.5},
		{"same day", 1, 0.5, "2026-11-02", "2026-11-02", 1, 0.55},
		{"cap new day", 4, 0.9, "2026-11-01", "2026-11-02", 5, 1},
		{"cap same day", 4, 0.98, "2026-11-02", "2026-11-02", 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, sc := Usage(tt.stab, tt.score, tt.lastUsed, tt.today)
			if st != tt.wantStab || !near(sc, tt.wantScore) {
				t.Errorf("got (%d, %v), want (%d, %v)", st, sc, tt.wantStab, tt.wantScore)
			}
		})
	}
}

func TestDecayCurves(t *testing.T) {
	tests := []struct {
		name      string
		kind      Kind
		salience  string
		stability int
		days      int
		score     float64
		want      float64
	}{
		// daily = 1 - 0.1/(1+0) = 0.9; 0.5 * 0.9^1
		{"semantic one day", KindKnowledge, "", 0, 1, 0.5, 0.45},
		// daily = 1 - 0.1/(1+2*0.5) = 0.95; 0.5*0.95^10
		{"semantic stable ten days", KindSkill, "", 2, 10, 0.5, 0.5 * math.Pow(0.95, 10)},
		// episodic low: base .25 → 0.75/day
		{"episode low", KindEpisode, "low", 0, 2, 0.4, 0.4 * 0.75 * 0.75},
		// episodic mid: base .175
		{"episode mid", KindEpisode, "mid", 0, 3, 0.6, 0.6 * math.Pow(1-0.175, 3)},
		// episodic high: base .1
		{"episode high", KindEpisode, "high", 1, 5, 0.8, 0.8 * math.Pow(1-0.1/1.5, 5)},
		{"no days", KindKnowledge, "", 0, 0, 0.5, 0.5},
		{"negative days", KindKnowledge, "", 0, -3, 0.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decayed(tt.score, DecayBase(tt.kind, tt.salience), tt.stability, tt.days)
			if !near(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	// Monotone: more stability always decays slower.
	prev := 0.0
	for s := 0; s < 10; s++ {
		d := DailyDecay(DecayBaseSemantic, s)
		if d <= prev || d >= 1 {
			t.Fatalf("DailyDecay not increasing in stability at %d: %v", s, d)
		}
		prev = d
	}
	// An unused fresh fact retires (score < 0.2) after 9 idle days: 0.5*0.9^9 = 0.19.
	if got := Decayed(0.5, DecayBaseSemantic, 0, 8); got < RetireBelow {
		t.Errorf("retired too early: %v", got)
	}
	if got := Decayed(0.5, DecayBaseSemantic, 0, 9); got >= RetireBelow {
		t.Errorf("not retired after 9 days: %v", got)
	}
}

func TestFormatScore(t *testing.T) {
	tests := map[float64]string{0.5: "0.5", 1: "1.0", 0: "0.0", 0.12345: "0.123", 0.9996: "1.0", 1.7: "1.0", -0.2: "0.0", 0.7200000001: "0.72"}
	for in, want := range tests {
		if got := FormatScore(in); got != want {
			t.Errorf("FormatScore(%v) = %q, want %q", in, got, want)
		}
	}
}
