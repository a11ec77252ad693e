package dates

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkFindSpans is the cost every indexed entry pays once (entryDays).
func BenchmarkFindSpans(b *testing.B) {
	// a note of about 800 bytes naming a day once, the usual case
	text := strings.Repeat("the billing replica lags behind the primary during the nightly batch. ", 11) + "fixed it yesterday."
	ref := time.Date(2024, 3, 13, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		FindSpans(text, ref)
	}
}
