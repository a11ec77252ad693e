// Package whenen is github.com/olebedev/when v1.1.0's English rules
// (rules/en, Apache License 2.0: LICENSE), copied so that they are set up
// when dates first reads a phrase: the library's package builds every rule
// at start-up (0.4 ms and 370 KB of every start, GODEBUG=inittrace=1). The
// one change: All is a function. dates' TestParserMatchesWhen holds the
// copy to the library.
//
// Files, by job (as upstream):
//
//	en.go                                   All, the word tables
//	casual_date.go, casual_time.go          today, tomorrow, tonight …
//	weekday.go, past_time.go, deadline.go   next friday, 2 weeks ago, in 3 days
//	exact_month_date.go                     dec 24, 24th of december
//	hour.go, hour_minute.go                 5pm, 10:30
package whenen
