package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strings"
	"time"
)

// Digest identifies a text: the first 16 bytes of its SHA-256, stored in
// hex. The zero digest matches no text.
type Digest [16]byte

// parseDigest reads the stored hex form; anything else is the zero digest,
// so the entry is reloaded and re-embedded rather than trusted.
func parseDigest(s string) Digest {
	var d Digest
	if b, err := hex.DecodeString(s); err == nil && len(b) == len(d) {
		copy(d[:], b)
	}
	return d
}

func (d Digest) hex() string { return hex.EncodeToString(d[:]) }

// Row is one entry as the file stores it: the doc's fields, the scan
// facts it was loaded with, the digests that decide reloading and
// re-embedding, and the vector with the ID of the embedder that made it.
type Row struct {
	Path, Kind, Name, Description, Type, Body string
	Score                                     float64
	Related, Tags                             []string
	Supersedes                                []string // names this entry replaced (a fact that changed)
	SupersededBy                              string   // the name of the entry that replaced it
	When                                      time.Time
	AppliesWhen, NotAppliesWhen, Context      string
	ModTime                                   time.Time
	Size                                      int64
	DocHash, EmbedHash                        Digest
	Embedder                                  string
	Vec                                       []float32 // nil until embedded
	Lex                                       []byte    // the lexical view (EncodeLex); nil: count the text
}

// loadAll reads every stored row.
func (s *Store) loadAll(ctx context.Context) ([]Row, error) {
	// sized first: grown by append, copying the rows (about 300 bytes
	// each) was a third of this load at 50k entries (0.17 of 0.52 s of CPU)
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&n); err != nil {
		return nil, fmt.Errorf("index: count entries: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT e.path, kind, name, description, type, score, body,
		related, tags, when_unix, applies_when, not_applies_when, context, mtime_ns, size, e.doc_hash,
		embed_hash, embedder, embedding, l.data, c.supersedes, c.superseded_by FROM entries e
		LEFT JOIN lex l ON l.path = e.path AND l.doc_hash = e.doc_hash
		LEFT JOIN changes c ON c.path = e.path`)
	if err != nil {
		return nil, fmt.Errorf("index: load entries: %w", err)
	}
	defer rows.Close()
	out := make([]Row, 0, n)
	// kinds, types and embedder IDs repeat on every row: one string each,
	// not one per row
	seen := map[string]string{}
	intern := func(s string) string {
		if v, ok := seen[s]; ok {
			return v
		}
		seen[s] = s
		return s
	}
	for rows.Next() {
		var r Row
		var related, tags, docHash, embedHash string
		var supersedes, supersededBy sql.NullString
		var when, mtime int64
		var blob []byte
		if err := rows.Scan(&r.Path, &r.Kind, &r.Name, &r.Description, &r.Type, &r.Score, &r.Body,
			&related, &tags, &when, &r.AppliesWhen, &r.NotAppliesWhen, &r.Context, &mtime, &r.Size, &docHash,
			&embedHash, &r.Embedder, &blob, &r.Lex, &supersedes, &supersededBy); err != nil {
			return nil, fmt.Errorf("index: scan entry: %w", err)
		}
		_ = json.Unmarshal([]byte(related), &r.Related)
		_ = json.Unmarshal([]byte(tags), &r.Tags)
		if supersedes.Valid {
			_ = json.Unmarshal([]byte(supersedes.String), &r.Supersedes)
		}
		r.SupersededBy = supersededBy.String
		if when != 0 {
			r.When = time.Unix(0, when).UTC()
		}
		r.ModTime = time.Unix(0, mtime)
		r.DocHash, r.EmbedHash = parseDigest(docHash), parseDigest(embedHash)
		r.Kind, r.Type, r.Embedder = intern(r.Kind), intern(r.Type), intern(r.Embedder)
		r.Vec = decodeVec(blob)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: load entries: %w", err)
	}
	return out, nil
}

// Touch is a row whose content did not change: new mtime and size only.
type Touch struct {
	Path    string
	ModTime time.Time
	Size    int64
}

// Write applies one sync's changes in a single transaction and
// re-resolves the links they can affect.
func (s *Store) Write(ctx context.Context, upserts []Row, touched []Touch, removed []string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
	if err := s.bumpGen(ctx, tx); err != nil {
		return err
	}
	up, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO entries(path, kind, name, dirname,
		description, type, score, body, related, tags, when_unix, applies_when, not_applies_when,
		context, mtime_ns, size, doc_hash, embed_hash, embedder, embedding)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("index: prepare upsert: %w", err)
	}
	defer up.Close()
	delLinks, err := tx.PrepareContext(ctx, `DELETE FROM links WHERE src=?`)
	if err != nil {
		return fmt.Errorf("index: prepare links: %w", err)
	}
	defer delLinks.Close()
	addLink, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO links(src, target) VALUES(?,?)`)
	if err != nil {
		return fmt.Errorf("index: prepare links: %w", err)
	}
	defer addLink.Close()
	for i := range upserts {
		d := &upserts[i]
		related, _ := json.Marshal(nonNil(d.Related))
		tags, _ := json.Marshal(nonNil(d.Tags))
		var when int64
		if !d.When.IsZero() {
			when = d.When.UnixNano()
		}
		if _, err := up.ExecContext(ctx, d.Path, d.Kind, d.Name, path.Base(path.Dir(d.Path)),
			d.Description, d.Type, d.Score, d.Body, string(related), string(tags), when,
			d.AppliesWhen, d.NotAppliesWhen, d.Context, d.ModTime.UnixNano(), d.Size, d.DocHash.hex(),
			d.EmbedHash.hex(), d.Embedder, encodeVec(d.Vec)); err != nil {
			return fmt.Errorf("index: write %s: %w", d.Path, err)
		}
		if err := writeLex(ctx, tx, d); err != nil {
			return err
		}
		if err := writeChanges(ctx, tx, d); err != nil {
			return err
		}
		if _, err := delLinks.ExecContext(ctx, d.Path); err != nil {
			return fmt.Errorf("index: links %s: %w", d.Path, err)
		}
		for _, r := range d.Related {
			if r = strings.TrimSpace(r); r != "" {
				if _, err := addLink.ExecContext(ctx, d.Path, r); err != nil {
					return fmt.Errorf("index: links %s: %w", d.Path, err)
				}
			}
		}
	}
	if len(touched) > 0 {
		st, err := tx.PrepareContext(ctx, `UPDATE entries SET mtime_ns=?, size=? WHERE path=?`)
		if err != nil {
			return fmt.Errorf("index: prepare touch: %w", err)
		}
		defer st.Close()
		for _, t := range touched {
			if _, err := st.ExecContext(ctx, t.ModTime.UnixNano(), t.Size, t.Path); err != nil {
				return fmt.Errorf("index: touch %s: %w", t.Path, err)
			}
		}
	}
	for _, p := range removed {
		if _, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE path=?`, p); err != nil {
			return fmt.Errorf("index: delete %s: %w", p, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM links WHERE src=?`, p); err != nil {
			return fmt.Errorf("index: delete links %s: %w", p, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM lex WHERE path=?`, p); err != nil {
			return fmt.Errorf("index: delete lexical view %s: %w", p, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM changes WHERE path=?`, p); err != nil {
			return fmt.Errorf("index: delete changes %s: %w", p, err)
		}
	}
	if len(upserts) > 0 || len(removed) > 0 {
		// Resolution can change for any link whose target was written or
		// removed; re-resolving unresolved and affected ones is cheap.
		if _, err := tx.ExecContext(ctx, `UPDATE links SET dst=(
			SELECT e.path FROM entries e WHERE e.name=links.target COLLATE NOCASE
			UNION ALL SELECT e.path FROM entries e WHERE e.dirname=links.target COLLATE NOCASE
			LIMIT 1) WHERE dst IS NULL OR dst NOT IN (SELECT path FROM entries)
			OR target IN (SELECT name FROM entries WHERE path IN (SELECT value FROM json_each(?)))`,
			changedPaths(upserts)); err != nil {
			return fmt.Errorf("index: resolve links: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: commit: %w", err)
	}
	return nil
}

// writeLex stores a row's lexical view, or drops a stale one: a row
// written without a view is counted from its text at the next open.
func writeLex(ctx context.Context, tx *sql.Tx, d *Row) error {
	var err error
	if d.Lex != nil {
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO lex(path, doc_hash, data) VALUES(?,?,?)`,
			d.Path, d.DocHash.hex(), d.Lex)
	} else {
		_, err = tx.ExecContext(ctx, `DELETE FROM lex WHERE path=?`, d.Path)
	}
	if err != nil {
		return fmt.Errorf("index: lexical view %s: %w", d.Path, err)
	}
	return nil
}

// writeChanges stores what a row says it replaced or was replaced by, or
// drops what it said before; most rows say nothing and have no row here.
func writeChanges(ctx context.Context, tx *sql.Tx, d *Row) error {
	var err error
	if len(d.Supersedes) > 0 || d.SupersededBy != "" {
		supersedes, _ := json.Marshal(nonNil(d.Supersedes))
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO changes(path, supersedes, superseded_by) VALUES(?,?,?)`,
			d.Path, string(supersedes), d.SupersededBy)
	} else {
		_, err = tx.ExecContext(ctx, `DELETE FROM changes WHERE path=?`, d.Path)
	}
	if err != nil {
		return fmt.Errorf("index: changes %s: %w", d.Path, err)
	}
	return nil
}

func changedPaths(rs []Row) string {
	ps := make([]string, len(rs))
	for i := range rs {
		ps[i] = rs[i].Path
	}
	b, _ := json.Marshal(ps)
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Light is a row whose text did not change: new score, doc digest,
// mtime or size.
type Light struct {
	Path    string
	Score   float64
	DocHash Digest
	ModTime time.Time
	Size    int64
}

// WriteLight persists rows whose text did not change in one transaction.
func (s *Store) WriteLight(ctx context.Context, ls []Light) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
	if err := s.bumpGen(ctx, tx); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, `UPDATE entries SET score=?, doc_hash=?, mtime_ns=?, size=? WHERE path=?`)
	if err != nil {
		return fmt.Errorf("index: prepare row update: %w", err)
	}
	defer st.Close()
	// the text is unchanged, so is its lexical view: it follows the digest
	lex, err := tx.PrepareContext(ctx, `UPDATE lex SET doc_hash=? WHERE path=?`)
	if err != nil {
		return fmt.Errorf("index: prepare lexical view update: %w", err)
	}
	defer lex.Close()
	for _, l := range ls {
		if _, err := st.ExecContext(ctx, l.Score, l.DocHash.hex(), l.ModTime.UnixNano(), l.Size, l.Path); err != nil {
			return fmt.Errorf("index: update %s: %w", l.Path, err)
		}
		if _, err := lex.ExecContext(ctx, l.DocHash.hex(), l.Path); err != nil {
			return fmt.Errorf("index: update lexical view %s: %w", l.Path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: commit row updates: %w", err)
	}
	return nil
}

// Vector is the background embedder's result for one row: the vector of
// the text whose digest is EmbedHash.
type Vector struct {
	Path      string
	EmbedHash Digest
	Embedder  string
	Vec       []float32
}

// WriteVectors stores the background embedder's vectors in one
// transaction. A row is updated only while it still holds the text the
// vector was computed from (embed_hash): a sync that rewrote it meanwhile
// queued its new text, and its row must not get the old vector.
func (s *Store) WriteVectors(ctx context.Context, vs []Vector) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
	if err := s.bumpGen(ctx, tx); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, `UPDATE entries SET embedder=?, embedding=? WHERE path=? AND embed_hash=?`)
	if err != nil {
		return fmt.Errorf("index: prepare vector update: %w", err)
	}
	defer st.Close()
	for _, v := range vs {
		if _, err := st.ExecContext(ctx, v.Embedder, encodeVec(v.Vec), v.Path, v.EmbedHash.hex()); err != nil {
			return fmt.Errorf("index: vector %s: %w", v.Path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: commit vectors: %w", err)
	}
	return nil
}

// Link is one related: reference as stored in the links table.
type Link struct {
	Src    string // path of the entry that names the link
	Target string // the name or directory name it gives
	Dst    string // resolved path; "" when nothing answers to Target
}

// Links reads the links table (all, or only unresolved ones).
func (s *Store) Links(ctx context.Context, orphansOnly bool) ([]Link, error) {
	q := `SELECT src, target, COALESCE(dst,'') FROM links`
	if orphansOnly {
		q += ` WHERE dst IS NULL`
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY src, target`)
	if err != nil {
		return nil, fmt.Errorf("index: links: %w", err)
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		if err := rows.Scan(&l.Src, &l.Target, &l.Dst); err != nil {
			return nil, fmt.Errorf("index: links: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func encodeVec(v []float32) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
