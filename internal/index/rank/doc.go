// Package rank is somni's recall ranking: the in-memory corpus that
// serves searches and THE hybrid scorer used by recall_memories, the
// search_* tools, search_recent_conversation and associative hints, over
// the index's corpus (package index keeps it fresh) or an ad-hoc doc set
// (ScoreDocs). The vectors come from an embed.Embedder (package embed);
// the scorer never asks which one, only what it can do (embed.IsOff,
// embed.CalibrationOf, embed.QueryEmbedder, embed.TermWeighted). It
// embeds through one embed.Guard (Scorer.guard), which checks what comes
// back and backs off after a failure, so recall falls back to keywords at
// once; the index's background embedder embeds through the same one.
//
// Map:
//   - corpus.go    the in-memory corpus (Corpus): entries by slot, what
//     each is indexed under (its weighted terms, its links, its embedded
//     text) and its lexical view for the cache (Entry.Lex); the persistence
//     facts an Entry carries are package index's.
//   - scorer.go    the hybrid scorer (Scorer): the query cut to size and
//     embedded, ad-hoc doc sets (ScoreDocs), and Rank, which runs the
//     ranking's phases in order; the ranking's constants, each with its
//     measurement. The phases, one file each:
//   - ranking.go   one query's ranking: its lexical view and the
//     candidates found so far (cand), in pooled arrays.
//   - lexical.go   keyword candidates: strong weighted-BM25 evidence, or
//     the whole query held literally (checked late, where it could pay).
//   - semantic.go  cosine candidates: an entry's own cosine or the one it
//     borrows from the question it answers (contextCos); the cosine's
//     weight, and the words' and vectors' agreement on CJK; every
//     entry's cosine on every core from parallelScan entries on.
//   - admit.go     candidates for other evidence: a day the query asks
//     about (dated), an exact symbol held verbatim, which pins (symbols).
//   - score.go     the hybrid: the calibrated cosine and the keyword
//     (hybridScore), the damps and bonuses; the best k kept.
//   - collect.go   top-k collection and the ranking order (better): the
//     hybrid at its prior, a team pool's entry (index.Options.Shared) at
//     sharedPrior beside the user's own.
//   - spread.go    one hop of link spreading from the top seeds.
//   - floor.go     the BM25 floor: plain BM25's first entry (bm25.Index,
//     exactly make eval's baseline) kept in the first places of a
//     Chinese question's ranking.
//   - plain.go     the floor's index: kept by Put and Remove once built;
//     the index's corpus has it built apart from searches
//     (PlainWanted, BuildPlain, SetPlain), a throwaway one on first use.
//   - supersede.go the ranked list as package change reorders it: the
//     newest statement of a thing above the one it replaced, which is
//     marked (Hit.SupersededBy); the old one first for a question about
//     the past.
//   - explain.go   why it matched: the Hits built from the ranked list,
//     each with its evidence (Hit's fields: the query's terms and words
//     it holds, the symbol that pinned it, the seed it was spread from).
//   - filter.go    the query's filters (passes), and what an empty query
//     lists (listRecent).
//   - dated.go     what an entry says about time (dates.TextDays; the day
//     ranges and their bounds live in package dates).
//   - shown.go     hits as package present renders them for a model (Shown);
//     which are worth showing at all is package worktools' (Evident).
//   - turns.go     conversation turns as doc sets (TurnDocs).
//   - types.go     Doc, the kinds (KindKnowledge, …, ParseKind), Query, Hit.
//   - synthetic.go synthetic corpora for benchmarks (SyntheticDocs).
//   - vectors.go   the corpus' vectors packed in large chunks and read by
//     slot (vecArena; Entry.Vec, SetVec, ShareVec), and packed anew in
//     slot order apart from searches (RepackWanted, BuildRepack,
//     SetRepack).
//   - snapshot.go  the corpus written to bytes and read back
//     (Corpus.Snapshot, ReadSnapshot): entries, vectors and posting lists
//     in one pass, refused unless it names the key it was asked for
//     (SnapshotKey) and the counting NewEntry does now, and whole.
//   - huge_*.go    huge pages for the few large slabs a snapshot's read
//     allocates.
//
// Keyword ranking is a weighted BM25 computed in Go (package bm25's
// Weighted, which the corpus posts each entry's weighted terms to), not
// SQLite FTS5: docs/ARCHITECTURE.md says why (CJK windows, a normalised
// score, one scorer for the index and ad-hoc doc sets).
//
// What keeping it in Go costs is in the README's "Measuring" table (index
// search at 10k entries, `make bench`), one copy to keep true.
//
// Field weights: name 3, description 2, body 1, Context 0.5 (text around an
// entry, e.g. the turn a conversation reply answers; see TurnDocs).
//
// Questions and their answers: a reply borrows the cosine of the question
// turn it answers, an answered question is damped so the answer comes
// first, and a memory that only asks is damped too (contextLend,
// answeredDamp, askingDamp; each constant holds its measurement).
//
// Long conversations stored one entry per turn (the dialogue eval, six
// conversations of 17 sessions) are where recall met BM25 most closely
// before; four rules of the one scorer serve them, each with its
// measurement at its constant:
//
//   - Dates are evidence (dated.go, dateBonus): an entry is about its own
//     day and the days its text names; a query naming a day, a month or a
//     period lifts and admits the entries about it, and a bound weighs
//     (outsideBoundDamp); dates.Question reads what a question asks.
//   - A query embedded by a feature-sum embedder (hash, local's lexical
//     half) weighs each word by how rare it is in the corpus
//     (bm25.Weighted.TermWeight), so a speaker's name on half the turns
//     cannot carry the cosine; stored vectors stay corpus-independent.
//   - A candidate whose only words in common with the query are ones
//     nearly every entry holds keeps 0.3 (unexplainedDamp).
//   - An entry not embedded yet scores its keyword in the cosine's place.
//
// Memory at 10k entries is mostly the entries' own text and the posting
// lists: entries keep no term table or lowercased copy of their own
// (corpus.go), posting lists are compacted after big loads
// (bm25.Weighted.Compact).
package rank
