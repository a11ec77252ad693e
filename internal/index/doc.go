// Package index is somni's recall index: a derived SQLite cache of memory
// entries with their embeddings, kept fresh by incremental syncs, the
// watcher's events and a background embedder, and published to the
// in-memory corpus searches read. The corpus and the hybrid ranking over
// it live in package rank (internal/index/rank); Search ranks with its
// Scorer. The vectors come from an embed.Embedder (package embed); the
// index never asks which one, only whether it is off (embed.IsOff), keys
// its cache on the embedder's ID and embeds through the scorer's
// embed.Guard (rank.Scorer.Guard), so a failure while embedding entries
// backs off queries too and recall falls back to keywords at once.
//
// Map:
//   - index.go     Open, Sync, Search, Status: the index over a Source.
//   - sync.go      incremental sync (watched paths, safety scan, deferred writes).
//   - embedq.go    the background embedder: syncs publish entries without
//     vectors and queue them; one goroutine embeds, stores and publishes
//     them per batch; WaitEmbedded waits for it. Searches never wait for
//     it: entries not embedded yet score by keyword meanwhile.
//   - store.go     entries to and from the rows of the SQLite file, which
//     package cache (internal/index/cache) keeps: entries, vectors, lexical
//     views, links, state; a write the file refuses (a full disk) costs
//     recall nothing: what the sync read is published, and the next sync
//     rewrites the file (cacheFailed).
//   - apart.go     what the corpus builds apart from searches, the BM25
//     floor's index and its vectors packed anew in slot order: at the end
//     of Sync, else in the background, while the corpus wants them
//     (rank.Corpus.PlainWanted, RepackWanted).
//   - snapshot.go  when the corpus' snapshot is read (it names the cache
//     file's identity and write generation and the live embedder) and
//     written (a clean Close, and once after a start that read the rows),
//     so a restart reads the corpus in one pass instead of the rows.
//   - types.go     Source, FileRef, Status, SyncStats, Options (QuickStart:
//     Open returns once the cache is read, the Source is listed after
//     it, the watches follow the first full sync; SyncSince).
//   - memsource.go an in-memory Source.
//   - package rank (internal/index/rank): the in-memory corpus and the
//     hybrid ranking over it, its Map in its own doc.
//   - package watch (internal/index/watch): what changed since the last
//     sync, and the inotify watcher that records it (scanning elsewhere).
//
// The SQLite file stores entries, vectors and links so a restart re-embeds
// nothing, and each entry's lexical view (term frequencies, length, days;
// package cache) so it re-tokenizes nothing: Open posts the stored terms
// (rank.Corpus.Put with the view, rank.Entry.Lex), counting only entries
// lacking a current view (rank.LexCurrent), then stores it.
package index
