package worktools

import (
	"errors"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/toolspec"
)

// dayArg resolves a tool's date argument, as the user said it ("next
// friday", "三天后", 2026-12-04), to a day in the user's zone on the
// server's clock; echo restates it for the tool result so the model (and
// the user reading along) sees which day was understood. An empty v is no
// date; one that is not a date is the caller's mistake (-32602), naming
// what was not understood.
func (s *tools) dayArg(name, v string) (day time.Time, echo string, err error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, "", nil
	}
	day, err = dates.Resolve(v, s.Now())
	var de *dates.Error
	if errors.As(err, &de) {
		return time.Time{}, "", &toolspec.ArgError{Arg: name, Msg: de.Error()}
	}
	if err != nil {
		return time.Time{}, "", err
	}
	return day, present.DayEcho(day, v), nil
}

// endOfDay makes a day an inclusive upper bound.
func endOfDay(day time.Time) time.Time {
	if day.IsZero() {
		return day
	}
	return day.AddDate(0, 0, 1).Add(-time.Nanosecond)
}
