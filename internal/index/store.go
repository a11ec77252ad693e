package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"modernc.org/sqlite" // registers the pure-Go "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// schemaVersion changes whenever the tables change; a mismatch rebuilds.
const schemaVersion = "2" // 2: entries.context

const schemaSQL = `
CREATE TABLE IF NOT EXISTS state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries(
	path TEXT PRIMARY KEY,
	kind TEXT NOT NULL, name TEXT NOT NULL, dirname TEXT NOT NULL, description TEXT NOT NULL,
	type TEXT NOT NULL, score REAL NOT NULL, body TEXT NOT NULL,
	related TEXT NOT NULL, tags TEXT NOT NULL, when_unix INTEGER NOT NULL,
	applies_when TEXT NOT NULL, not_applies_when TEXT NOT NULL, context TEXT NOT NULL,
	mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
	doc_hash TEXT NOT NULL, embed_hash TEXT NOT NULL, embedder TEXT NOT NULL, embedding BLOB);
CREATE INDEX IF NOT EXISTS entries_name ON entries(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS entries_dirname ON entries(dirname COLLATE NOCASE);
CREATE TABLE IF NOT EXISTS links(
	src TEXT NOT NULL, target TEXT NOT NULL, dst TEXT,
	PRIMARY KEY(src, target));
CREATE INDEX IF NOT EXISTS links_dst ON links(dst);
CREATE INDEX IF NOT EXISTS links_target ON links(target COLLATE NOCASE);
`

// store is the SQLite side of the index: a derived cache that can be
// deleted at any moment and is rebuilt from the Source.
type store struct {
	db   *sql.DB
	path string
	fi   os.FileInfo // identity of the file we opened, to notice deletion
}

// openStore opens (creating) the index database and reads its entries.
// A file that is not a usable index (corrupt, truncated, another schema)
// is removed and recreated: rebuilt reports that. When no file can be used
// at p at all (read-only or missing directory, a directory in its place, a
// lock held past busy_timeout by another process) the cache lives in
// memory for this run instead: recall keeps working, only the next start
// re-embeds. A file another process may be using is never removed.
func openStore(ctx context.Context, p string, log *slog.Logger) (st *store, entries []*entry, rebuilt bool, err error) {
	st, entries, err = tryOpenLoad(ctx, p)
	if err == nil {
		return st, entries, false, nil
	}
	if ctx.Err() != nil {
		return nil, nil, false, fmt.Errorf("index: open %s: %w", p, err)
	}
	if !unavailable(err) {
		// A derived cache: throw a broken one away rather than fail.
		removed := true
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if rerr := os.Remove(p + suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				removed = false
			}
		}
		if removed {
			st, entries, err2 := tryOpenLoad(ctx, p)
			if err2 == nil {
				log.Warn("index file was unusable; rebuilt it empty", "path", p, "err", err)
				return st, entries, true, nil
			}
			err = err2
		}
	}
	mem, merr := openMemStore(ctx)
	if merr != nil {
		return nil, nil, false, fmt.Errorf("index: open %s: %w (in-memory fallback: %v)", p, err, merr)
	}
	log.Warn("index cache file unusable; keeping the index in memory for this run (the next start re-embeds)",
		"path", p, "err", err)
	return mem, nil, false, nil
}

// How long, and how often, opening the cache file retries a SQLITE_BUSY:
// another process's open takes milliseconds, and a file busy for longer
// is somebody's long write, which busy_timeout's 5 s already covers.
const (
	openBusyWait  = 2 * time.Second
	openBusyRetry = 20 * time.Millisecond
)

// isBusy reports whether err is SQLite's SQLITE_BUSY.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// unavailable reports whether err means the file could not be used rather
// than that it is broken: removing it would not help, or would destroy a
// database another process is writing.
func unavailable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY,
		sqlite3.SQLITE_PERM, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_AUTH:
		return true
	}
	return false
}

// tryOpenLoad opens the file at p and reads every entry, so a file whose
// pages are damaged past the header counts as broken here, not later.
func tryOpenLoad(ctx context.Context, p string) (*store, []*entry, error) {
	st, err := tryOpenStore(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	entries, err := st.loadAll(ctx)
	if err != nil {
		st.close()
		return nil, nil, err
	}
	return st, entries, nil
}

// openMemStore is the fallback cache: an in-memory database on the one
// connection the pool keeps (MaxOpenConns 1, no idle expiry).
func openMemStore(ctx context.Context) (*store, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := initSchema(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db}, nil
}

// tryOpenStore opens the cache file. Every process on the data dir (the
// DSH sidecar, an MCP server) shares it: rows are a function of the note
// and the embedder, and each process reads the file only when it opens, so
// sharing spares a second process the full re-embed a private file would
// cost (10k entries at 368 texts/s: 27 s). Measured with two processes each
// rewriting 15 of 300 notes and syncing 200 times at once
// (TestCacheSharedByTwoProcesses): no SQLITE_BUSY, sync p50 3.3–3.9 ms and
// p99 8–13 ms shared against 3.3–6.4 / 8–32 ms with a file each. WAL lets
// one write while the other reads; busy_timeout covers the other's write
// transaction, which lasts milliseconds.
func tryOpenStore(ctx context.Context, p string) (*store, error) {
	dsn := "file:" + (&url.URL{Path: p}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	db.SetMaxOpenConns(1) // one writer; readers use the in-memory corpus
	// Opening the connection switches the file to WAL, which SQLite can
	// refuse with SQLITE_BUSY at once, busy_timeout or not, while another
	// process is opening the same new file: about one start in five with
	// two processes starting together then fell back to an in-memory
	// cache. That refusal lasts as long as the other's open does.
	for deadline := time.Now().Add(openBusyWait); ; {
		err = initSchema(ctx, db)
		if err == nil || !isBusy(err) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(openBusyRetry)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("stat: %w", err)
	}
	return &store{db: db, path: p, fi: fi}, nil
}

// initSchema creates the tables and checks the schema version.
func initSchema(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	var ver string
	err := db.QueryRowContext(ctx, `SELECT value FROM state WHERE key='schema'`).Scan(&ver)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := db.ExecContext(ctx, `INSERT INTO state(key,value) VALUES('schema',?)`, schemaVersion); err != nil {
			return fmt.Errorf("state: %w", err)
		}
	case err != nil:
		return fmt.Errorf("state: %w", err)
	case ver != schemaVersion:
		return fmt.Errorf("schema version %q, want %q", ver, schemaVersion)
	}
	return nil
}

// gone reports whether the database file was deleted or replaced since
// it was opened (an open handle would keep writing to the unlinked inode);
// never for the in-memory fallback.
func (s *store) gone() bool {
	if s.path == "" {
		return false
	}
	fi, err := os.Stat(s.path)
	return err != nil || !os.SameFile(fi, s.fi)
}

func (s *store) close() error { return s.db.Close() }

// setState records one key of the state table.
func (s *store) setState(ctx context.Context, k, v string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO state(key,value) VALUES(?,?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, k, v)
	if err != nil {
		return fmt.Errorf("index: set state %s: %w", k, err)
	}
	return nil
}

// loadAll reads every stored entry.
func (s *store) loadAll(ctx context.Context) ([]*entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, kind, name, description, type, score, body,
		related, tags, when_unix, applies_when, not_applies_when, context, mtime_ns, size, doc_hash,
		embed_hash, embedder, embedding FROM entries`)
	if err != nil {
		return nil, fmt.Errorf("index: load entries: %w", err)
	}
	defer rows.Close()
	var out []*entry
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
		var d Doc
		var related, tags, docHash, embedHash, embedder string
		var when, mtime, size int64
		var blob []byte
		if err := rows.Scan(&d.Path, &d.Kind, &d.Name, &d.Description, &d.Type, &d.Score, &d.Body,
			&related, &tags, &when, &d.AppliesWhen, &d.NotAppliesWhen, &d.Context, &mtime, &size, &docHash,
			&embedHash, &embedder, &blob); err != nil {
			return nil, fmt.Errorf("index: scan entry: %w", err)
		}
		_ = json.Unmarshal([]byte(related), &d.Related)
		_ = json.Unmarshal([]byte(tags), &d.Tags)
		if when != 0 {
			d.When = time.Unix(0, when).UTC()
		}
		e := &entry{doc: d} // counted by corpus.put, one at a time
		e.ref = FileRef{Path: d.Path, Kind: d.Kind, ModTime: time.Unix(0, mtime), Size: size}
		e.docHash, e.embedHash, e.embedder = parseDigest(docHash), parseDigest(embedHash), intern(embedder)
		e.doc.Kind, e.doc.Type = intern(e.doc.Kind), intern(e.doc.Type)
		e.ref.Kind = e.doc.Kind
		e.vec = decodeVec(blob)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: load entries: %w", err)
	}
	return out, nil
}

// write applies one sync's changes in a single transaction and
// re-resolves the links they can affect.
func (s *store) write(ctx context.Context, upserts []*entry, touched []*entry, removed []string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
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
	for _, e := range upserts {
		d := e.doc
		related, _ := json.Marshal(nonNil(d.Related))
		tags, _ := json.Marshal(nonNil(d.Tags))
		var when int64
		if !d.When.IsZero() {
			when = d.When.UnixNano()
		}
		if _, err := up.ExecContext(ctx, d.Path, d.Kind, d.Name, path.Base(path.Dir(d.Path)),
			d.Description, d.Type, d.Score, d.Body, string(related), string(tags), when,
			d.AppliesWhen, d.NotAppliesWhen, d.Context, e.ref.ModTime.UnixNano(), e.ref.Size, e.docHash,
			e.embedHash, e.embedder, encodeVec(e.vec)); err != nil {
			return fmt.Errorf("index: write %s: %w", d.Path, err)
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
		for _, e := range touched {
			if _, err := st.ExecContext(ctx, e.ref.ModTime.UnixNano(), e.ref.Size, e.doc.Path); err != nil {
				return fmt.Errorf("index: touch %s: %w", e.doc.Path, err)
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

func changedPaths(es []*entry) string {
	ps := make([]string, len(es))
	for i, e := range es {
		ps[i] = e.doc.Path
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

// Link is one related: reference as stored in the links table.
type Link struct {
	Src    string // path of the entry that names the link
	Target string // the name or directory name it gives
	Dst    string // resolved path; "" when nothing answers to Target
}

// links reads the links table (all, or only unresolved ones).
func (s *store) links(ctx context.Context, orphansOnly bool) ([]Link, error) {
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

// writeVectors stores the background embedder's vectors in one
// transaction. A row is updated only while it still holds the text the
// vector was computed from (embed_hash): a sync that rewrote it meanwhile
// queued its new text, and its row must not get the old vector.
func (s *store) writeVectors(ctx context.Context, es []*entry) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE entries SET embedder=?, embedding=? WHERE path=? AND embed_hash=?`)
	if err != nil {
		return fmt.Errorf("index: prepare vector update: %w", err)
	}
	defer st.Close()
	for _, e := range es {
		if _, err := st.ExecContext(ctx, e.embedder, encodeVec(e.vec), e.doc.Path, e.embedHash); err != nil {
			return fmt.Errorf("index: vector %s: %w", e.doc.Path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: commit vectors: %w", err)
	}
	return nil
}
