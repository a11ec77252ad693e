package cache

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the pure-Go "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// schemaVersion changes whenever the tables change; a mismatch rebuilds.
// A table added with CREATE TABLE IF NOT EXISTS that older files may lack
// (lex, whose rows only save work; changes, whose rows only entries written
// since it exists have) needs no new version.
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
CREATE TABLE IF NOT EXISTS lex(path TEXT PRIMARY KEY, doc_hash TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS changes(path TEXT PRIMARY KEY, supersedes TEXT NOT NULL, superseded_by TEXT NOT NULL);
`

// Store is the SQLite side of the index: a derived cache that can be
// deleted at any moment and is rebuilt from the Source.
type Store struct {
	db   *sql.DB
	path string
	fi   os.FileInfo // identity of the file we opened, to notice deletion

	// The file's identity and write generation (state 'id' and 'gen'):
	// every write of entry rows or vectors bumps gen, so a copy of the
	// rows kept elsewhere (the index's snapshot) names the generation it
	// equals. own is the generation this Store's rows were read at or
	// last written to; apart turns true once another writer (another
	// process on the data dir) wrote in between, since what this process
	// holds is then no longer the file's content.
	genMu sync.Mutex
	id    string
	own   uint64
	apart bool
}

// Open opens (creating) the index database and reads its rows.
// A file that is not a usable index (corrupt, truncated, another schema)
// is removed and recreated: rebuilt reports that. When no file can be used
// at p at all (read-only or missing directory, a directory in its place, a
// lock held past busy_timeout by another process) the cache lives in
// memory for this run instead: recall keeps working, only the next start
// re-embeds. A file another process may be using is never removed.
func Open(ctx context.Context, p string, log *slog.Logger) (st *Store, entries []Row, rebuilt bool, err error) {
	return OpenSkipping(ctx, p, log, nil)
}

// OpenSkipping is Open that does not read the rows when skip, asked with
// the file's identity and generation before any row is read, says the
// caller holds them already (a snapshot of that generation): entries is
// then nil. A nil skip reads them.
func OpenSkipping(ctx context.Context, p string, log *slog.Logger, skip func(id string, gen uint64) bool) (st *Store, entries []Row, rebuilt bool, err error) {
	st, entries, err = tryOpenLoad(ctx, p, skip)
	if err == nil {
		return st, entries, false, nil
	}
	if ctx.Err() != nil {
		return nil, nil, false, fmt.Errorf("index: open %s: %w", p, err)
	}
	if !unavailable(err) {
		// A derived cache: throw a broken one away rather than fail.
		removed := true
		for _, suffix := range []string{"", "-wal", "-shm", "-snap"} {
			if rerr := os.Remove(p + suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				removed = false
			}
		}
		if removed {
			st, entries, err2 := tryOpenLoad(ctx, p, skip)
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

// pageCacheKiB bounds SQLite's page cache on the file (its default is
// 2,000 KiB). The cache is read whole once per start into the in-memory
// corpus; afterwards a sync writes a few rows, whose B-tree's inner pages
// fit in 256 KiB (64 pages). The default page cache stayed resident after
// the load: 33.1 → 30.1 MB at 2k short notes and 49.6 → 46.5 MB at 10k with
// this bound (release build, after 50 recalls; the Python sidecar holds
// 33.2 and 48.0 MB there).
const pageCacheKiB = 256

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
func tryOpenLoad(ctx context.Context, p string, skip func(id string, gen uint64) bool) (*Store, []Row, error) {
	st, err := tryOpenStore(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	// the generation before the rows: a write between the two leaves the
	// rows newer than own, and this Store apart at its first write (the
	// safe side: no snapshot claims a generation its rows are not)
	if st.id, st.own, err = st.readGen(ctx); err != nil {
		st.Close()
		return nil, nil, err
	}
	if skip != nil && skip(st.id, st.own) {
		return st, nil, nil
	}
	entries, err := st.loadAll(ctx)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, entries, nil
}

// openMemStore is the fallback cache: an in-memory database on the one
// connection the pool keeps (MaxOpenConns 1, no idle expiry).
func openMemStore(ctx context.Context) (*Store, error) {
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
	return &Store{db: db}, nil
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
func tryOpenStore(ctx context.Context, p string) (*Store, error) {
	dsn := "file:" + (&url.URL{Path: p}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
		fmt.Sprintf("&_pragma=cache_size(-%d)", pageCacheKiB)
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
	return &Store{db: db, path: p, fi: fi}, nil
}

// initSchema creates the tables and checks the schema version.
func initSchema(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	// Two processes opening a new file both find no version: the first
	// insert wins, the second keeps it, and both then check what is there.
	if _, err := db.ExecContext(ctx, `INSERT INTO state(key,value) VALUES('schema',?) ON CONFLICT(key) DO NOTHING`, schemaVersion); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	// the file's identity, made once with it: a snapshot of another file
	// (this one deleted and rebuilt) never matches
	var id [16]byte
	_, _ = rand.Read(id[:])
	if _, err := db.ExecContext(ctx, `INSERT INTO state(key,value) VALUES('id',?),('gen','0') ON CONFLICT(key) DO NOTHING`, hex.EncodeToString(id[:])); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	var ver string
	err := db.QueryRowContext(ctx, `SELECT value FROM state WHERE key='schema'`).Scan(&ver)
	switch {
	case err != nil:
		return fmt.Errorf("state: %w", err)
	case ver != schemaVersion:
		return fmt.Errorf("schema version %q, want %q", ver, schemaVersion)
	}
	return nil
}

// Gone reports whether the database file was deleted or replaced since
// it was opened (an open handle would keep writing to the unlinked inode);
// never for the in-memory fallback.
func (s *Store) Gone() bool {
	if s.path == "" {
		return false
	}
	fi, err := os.Stat(s.path)
	return err != nil || !os.SameFile(fi, s.fi)
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// StateAt reads one key of the state table of the cache file at p ("" when
// it has none), on a connection of its own: a caller without the index's
// Store (housekeeping keeps when it last ran here, with the data dir's
// machine-local facts) reads it without the rows.
func StateAt(ctx context.Context, p, k string) (string, error) {
	s, err := tryOpenStore(ctx, p)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return s.State(ctx, k)
}

// State reads one key of the state table ("" when it has none).
func (s *Store) State(ctx context.Context, k string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM state WHERE key=?`, k).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("index: state %s: %w", k, err)
	}
	return v, nil
}

// SetStateAt records one key of the state table of the cache file at p.
func SetStateAt(ctx context.Context, p, k, v string) error {
	s, err := tryOpenStore(ctx, p)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.SetState(ctx, k, v)
}

// SetState records one key of the state table.
func (s *Store) SetState(ctx context.Context, k, v string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO state(key,value) VALUES(?,?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, k, v)
	if err != nil {
		return fmt.Errorf("index: set state %s: %w", k, err)
	}
	return nil
}

// readGen reads the file's identity and write generation.
func (s *Store) readGen(ctx context.Context) (id string, gen uint64, err error) {
	var g string
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM state WHERE key='id'), (SELECT value FROM state WHERE key='gen')`).Scan(&id, &g); err != nil {
		return "", 0, fmt.Errorf("state: %w", err)
	}
	gen, _ = strconv.ParseUint(g, 10, 64)
	return id, gen, nil
}

// bumpGen counts one write of rows or vectors, inside its transaction:
// a generation other than own means another writer came in between.
func (s *Store) bumpGen(ctx context.Context, tx *sql.Tx) error {
	if s.path == "" {
		return nil // the in-memory fallback: nothing outlives the run
	}
	// the write first: a transaction that read before it wrote could not
	// wait for another process's write (SQLite answers SQLITE_BUSY at once)
	if _, err := tx.ExecContext(ctx, `UPDATE state SET value=CAST(value AS INTEGER)+1 WHERE key='gen'`); err != nil {
		return fmt.Errorf("index: bump generation: %w", err)
	}
	var g string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM state WHERE key='gen'`).Scan(&g); err != nil {
		return fmt.Errorf("index: read generation: %w", err)
	}
	next, _ := strconv.ParseUint(g, 10, 64)
	s.genMu.Lock()
	if next != s.own+1 {
		s.apart = true
	}
	s.own = next
	s.genMu.Unlock()
	return nil
}

// Generation is the file's identity and the generation this Store's rows
// equal; ok is false when they may not (the in-memory fallback, or
// another writer wrote in between, or the file has moved on since).
// It reads the file, so a write of another process since is seen.
func (s *Store) Generation(ctx context.Context) (id string, gen uint64, ok bool) {
	if s.path == "" {
		return "", 0, false
	}
	id, cur, err := s.readGen(ctx)
	s.genMu.Lock()
	defer s.genMu.Unlock()
	if err != nil || s.apart || id != s.id || cur != s.own {
		return "", 0, false
	}
	return id, cur, true
}
