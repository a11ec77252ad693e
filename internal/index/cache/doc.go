// Package cache is the recall index's SQLite file: a derived cache of the
// index's entries (their text, scan facts, digests and vectors) and their
// related: links, so a restart re-embeds nothing. It can be deleted at any
// moment: the index rebuilds it from its Source. Every process on a data
// dir shares the one file (WAL, busy_timeout); a file that cannot be used
// at all gives way to an in-memory database for the run. Errors keep the
// index's prefix: to callers they are the index's.
//
// Map:
//   - cache.go  Open (with the broken-file and in-memory fallbacks), the
//     schema, Gone, Close, State and SetState, and the file's identity and
//     write generation (Generation), which every write of rows or vectors
//     bumps, so a copy of the rows names the generation it equals.
//   - rows.go   Row and its reads and writes: loading every row, one sync's
//     Write, score-only WriteLight, the embedder's WriteVectors, Links.
//   - lex.go    an entry's lexical view (term frequencies, days) stored beside
//     its row, so a restart does not tokenize every entry again.
//   - snap.go   the file beside it (index.sqlite-snap) that holds the index's
//     corpus whole (rank.Corpus.Snapshot), written by a rename: it lives
//     and goes with the cache file.
package cache
