// Package index is somni's recall index: a derived SQLite cache of memory
// entries with their embeddings, an in-memory corpus that serves searches
// and THE hybrid scorer used by recall_memories, the search_* tools,
// search_recent_conversation and associative hints. The vectors come from
// an embed.Embedder (package embed); the index never asks which one, only
// what it can do (embed.IsOff, embed.CalibrationOf, embed.QueryEmbedder,
// embed.TermWeighted),
// and keys its cache on the embedder's ID. It embeds through one
// embed.Guard (Scorer.guard), which checks what comes back and backs off
// after a failure, so recall falls back to keywords at once.
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
//     views, links, state.
//   - corpus.go    the in-memory corpus and its keyword (BM25) statistics.
//   - scorer.go    the hybrid scorer: cosine, keyword, literal bonus, calibration.
//   - dated.go     what an entry says about time (dates.TextDays; the day
//     ranges and their bounds live in package dates).
//   - shown.go     hits as package present renders them for a model (Shown);
//     which are worth showing at all is package sidecar's (Evident).
//   - turns.go     conversation turns as doc sets (TurnDocs).
//   - types.go     Doc, Query, Hit, Status, Options, Source.
//   - memsource.go, synthetic.go  an in-memory Source; synthetic corpora for benchmarks.
//   - package watch (internal/index/watch): what changed since the last
//     sync, and the inotify watcher that records it (scanning elsewhere).
//
// Keyword ranking is a weighted BM25 computed in Go (corpus.keyword), not
// SQLite FTS5, although the original design listed an FTS5 table. Three
// reasons, each tied to something the scorer needs:
//
//   - CJK: a Han, kana or Hangul run is matched through its 2–4-character
//     windows. FTS5's built-in tokenizers (unicode61, porter, ascii) index a
//     whole CJK run as one token and trigram indexes only 3-grams, so none
//     can produce these windows; a custom tokenizer would need a cgo or
//     modernc-internal extension.
//   - Normalisation: keyword must lie in [0, 1] with one shared word unable
//     to score full, so each doc's BM25 is divided by the query's ideal
//     Σ idf·(k1+1), which needs per-term idf and document frequency. FTS5's
//     bm25() returns one opaque sum. The per-term view also lets a CJK run
//     be scored by its best segmentation into non-overlapping windows the
//     doc holds (a 4-char match counts once, not as its 6 overlapping
//     windows), with windows no entry holds (segmentation artefacts such
//     as "后不该喝") left out of the ideal. On the tuning half of the
//     conversation eval the segmentation moved keyword-only hit@1 from
//     0.39 to 0.46 with notes unchanged (0/12 false hints, precision 1.00).
//   - One scorer: ScoreDocs ranks ad-hoc doc sets (conversation turns read
//     from session logs) that are never in the database, with exactly the
//     math the index uses; an FTS5 path would need a second implementation.
//
// What keeping it in Go costs is measured by `make bench`; the numbers
// live in the README's "Measuring" table (index search at 10k entries),
// not here, so there is one copy to keep true. The
// SQLite file stores entries, vectors and links so a restart re-embeds
// nothing, and each entry's lexical view (term frequencies, length, days;
// package cache) so it re-tokenizes nothing: Open posts the stored terms
// (corpus.putLex), counting only entries lacking a current view, then stores it.
//
// Field weights: name 3, description 2, body 1, Context 0.5 (text around an
// entry, e.g. the turn a conversation reply answers; see TurnDocs).
//
// Questions and their answers: a reply whose context is a question turn
// in the same doc set takes max(own cosine, the question's cosine), the
// question's vector being its own entry's (no second embedding, no
// stored field, so the cache schema is unchanged); a question that some
// entry replies to keeps 0.8 of its hybrid before the literal bonus.
// The query is usually a paraphrase of the question, the content is in
// the answer. Tuning half of the conversation eval, hit@1: hash 0.43 →
// 0.61, keyword-only 0.46 → 0.50, local 0.46 → 0.65; notes unchanged.
// A memory file has no context to tell whether anything answers it, so
// one that ends asking keeps 0.5 (askingDamp): a remembered turn "How
// long do you hold that pose?" holds no answer.
//
// Long conversations stored one entry per turn (the dialogue eval, six
// conversations of 17 sessions) are where recall met BM25 most closely
// before; four rules of the one scorer serve them, each with its
// measurement at its constant:
//
//   - Dates are evidence (dated.go, dateBonus): an entry is about its own
//     day (Doc.When: an episode's, a knowledge entry's `created`, a turn's
//     session) and the days its text names, relative ones read from that
//     day; a query naming a month, a year, a date or a period ("last May",
//     "in 2024", "两周前", "去年十一月底") resolved against now lifts and
//     admits the entries about it: one of their days lies inside the
//     days asked (naming the whole year is not being about a day of it).
//     The query's date is evidence only as a date: its words and numbers
//     ("2025", "10" of 2025年5月10日) are neither keyword terms nor exact
//     symbols. A bound ("before March 2026", "3 月以前") weighs: entries
//     placed outside it keep half their score (outsideBoundDamp).
//   - A query embedded by a feature-sum embedder (hash, local's lexical
//     half) weighs each word by how rare it is in the corpus
//     (corpus.termWeight), so a speaker's name on half the turns cannot
//     carry the cosine; stored vectors stay corpus-independent.
//   - A candidate whose only words in common with the query are ones
//     nearly every entry holds keeps 0.3 (unexplainedDamp).
//   - An entry not embedded yet scores its keyword in the cosine's place.
//
// Memory at 10k entries is mostly the entries' own text and the posting
// lists: entries keep no term table or lowercased copy of their own
// (corpus.go), posting lists are compacted after big loads.
package index
