// Package whenzh is the two Chinese rules of github.com/olebedev/when
// v1.1.0 (rules/zh, Apache License 2.0: LICENSE) that dates uses, copied so
// that they are set up when dates first reads a phrase: the library's
// package builds all seven at start-up (0.3 ms of every start,
// GODEBUG=inittrace=1), and its time-of-day rules panic on most text. The
// changes: no All, compressStr moved here from the time-of-day rules. dates'
// TestParserMatchesWhen holds the copy to the library.
//
// Files, by job (as upstream):
//
//	zh.go           the word tables, compressStr
//	casual_date.go  今天, 明天, 后天 …
//	after_time.go   三天后, 两周后 …
package whenzh
