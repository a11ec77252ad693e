package cache

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"time"
)

// An entry's lexical view (Lex) is what the index counts from its text:
// the weighted term frequencies, the weighted length, the days the entry
// is about and a few flags. Stored beside its row, in table lex keyed by
// the row's doc_hash, it spares a restart tokenizing every entry again:
// 50k short notes, --embed off, 2 cores: 1.0 s of CPU and 400 MB of
// garbage (BenchmarkRestart, go tool pprof). A view is used only under the
// stamp it was written with (LexStamp): the index's version of the
// counting, and the local zone, since an entry's days are local days. Any
// other writer of the row (an older binary, which knows no lex table)
// changes doc_hash and so orphans the view; it is then counted again.

// LexStamp identifies the counting that produced a view: the caller's
// version of it and the offsets of the local zone over the years entries
// are dated in (a move to another zone, or new zone rules, re-counts).
func LexStamp(version uint32) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], version)
	h.Write(b[:4])
	for y := 1990; y <= 2040; y++ {
		for _, m := range []time.Month{time.January, time.July} {
			_, off := time.Date(y, m, 1, 12, 0, 0, 0, time.Local).Zone()
			binary.LittleEndian.PutUint32(b[:4], uint32(int32(off)))
			h.Write(b[:4])
		}
	}
	return h.Sum64()
}

// EncodeLex serialises a view: stamp, dl, flags (three bits, the caller's),
// days, then each term with its frequency (in the map's order, which the index never depends on).
func EncodeLex(stamp uint64, dl float32, flags [3]bool, days [][2]int32, terms map[string]float32) []byte {
	// sized exactly: a first start holds every new entry's view until its
	// rows are written, and varints sized at their maximum doubled that
	n := 8 + 4 + 1 + uvarintLen(len(days)) + 8*len(days) + uvarintLen(len(terms))
	for t := range terms {
		n += uvarintLen(len(t)) + len(t) + 4
	}
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint64(b, stamp)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(dl))
	var bits uint8
	for i, f := range flags {
		if f {
			bits |= 1 << i
		}
	}
	b = append(b, bits)
	b = binary.AppendUvarint(b, uint64(len(days)))
	for _, d := range days {
		b = binary.LittleEndian.AppendUint32(b, uint32(d[0]))
		b = binary.LittleEndian.AppendUint32(b, uint32(d[1]))
	}
	b = binary.AppendUvarint(b, uint64(len(terms)))
	for t, tf := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(tf))
	}
	return b
}

func uvarintLen(v int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(v))
}

// DecodeLex reads a view written under stamp, calling day and term for
// each entry of it. It checks the whole view before the first call, so a
// view from another stamp, or a damaged one, reports false having called
// nothing; the caller then counts the text itself.
func DecodeLex(b []byte, stamp uint64, day func(from, to int32), term func(t []byte, tf float32)) (dl float32, flags [3]bool, ok bool) {
	if !walkLex(b, stamp, nil, nil) {
		return 0, flags, false
	}
	walkLex(b, stamp, day, term)
	for i := range flags {
		flags[i] = b[12]&(1<<i) != 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b[8:])), flags, true
}

// LexValid reports whether b is a whole view written under stamp.
func LexValid(b []byte, stamp uint64) bool { return walkLex(b, stamp, nil, nil) }

// WriteLex stores views of rows already written (Path, DocHash, Lex), in
// one transaction: rows another process rewrote meanwhile hold another
// doc_hash, so their views stay unread.
func (s *Store) WriteLex(ctx context.Context, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: begin: %w", err)
	}
	defer tx.Rollback()
	for i := range rows {
		if err := writeLex(ctx, tx, &rows[i]); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: commit lexical views: %w", err)
	}
	return nil
}

// walkLex parses a view, calling day and term when they are not nil.
func walkLex(b []byte, stamp uint64, day func(from, to int32), term func([]byte, float32)) bool {
	if len(b) < 13 || binary.LittleEndian.Uint64(b) != stamp {
		return false
	}
	p := 13
	count := func() (int, bool) {
		v, n := binary.Uvarint(b[p:])
		if n <= 0 || v > uint64(len(b)) {
			return 0, false
		}
		p += n
		return int(v), true
	}
	nd, ok := count()
	if !ok || len(b)-p < 8*nd {
		return false
	}
	for range nd {
		if day != nil {
			day(int32(binary.LittleEndian.Uint32(b[p:])), int32(binary.LittleEndian.Uint32(b[p+4:])))
		}
		p += 8
	}
	nt, ok := count()
	if !ok {
		return false
	}
	for range nt {
		l, ok := count()
		if !ok || len(b)-p < l+4 {
			return false
		}
		if term != nil {
			term(b[p:p+l], math.Float32frombits(binary.LittleEndian.Uint32(b[p+l:])))
		}
		p += l + 4
	}
	return p == len(b)
}
