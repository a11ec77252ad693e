// Package export writes a data dir's memory as one archive a person keeps,
// moves or reads: every Markdown file of memory/ and skills/ — knowledge,
// learned skills, episodes, intentions, identity and users, archived
// entries, dream diaries, session logs and share proposals — in a gzipped
// tar with the data dir's layout, each file read through the data dir's
// boundary (package safefs: no link followed out of it). What is derived
// or machine-local stays out: index.sqlite, locks, the usage journal,
// temp files. Unpacked, the archive is a data dir: doctor finds it clean
// and recall answers the same once it has built its index.
//
// Map:
//
//	export.go  Write: the archive of a store's Markdown, in path order
package export

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// MaxFileBytes bounds one file of the archive: ten times a memory entry's
// own bound leaves room for a long session log; a larger Markdown file in
// the data dir is no memory somni wrote and is refused by name.
const MaxFileBytes = 10 * memory.MaxEntryBytes

// Summary is what an archive holds.
type Summary struct {
	Files int   // Markdown files written
	Bytes int64 // their size before compression
}

// Write writes the store's Markdown as a gzipped tar to w, in path order,
// each file under its data-dir path (memory/…, skills/…) with its mode
// 0644 and its modification time (recall's recency survives the trip).
func Write(ctx context.Context, st *memory.Store, w io.Writer) (Summary, error) {
	var sum Summary
	files, err := list(st)
	if err != nil {
		return sum, err
	}
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return sum, fmt.Errorf("export: %w", err)
		}
		data, err := st.FS().ReadFile(f.abs, MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing (a dream archived it): not memory any more
		}
		if err != nil {
			return sum, fmt.Errorf("export: %s: %w", f.name, err)
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o644, Size: int64(len(data)), ModTime: f.mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return sum, fmt.Errorf("export: %s: %w", f.name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return sum, fmt.Errorf("export: %s: %w", f.name, err)
		}
		sum.Files++
		sum.Bytes += int64(len(data))
	}
	if err := tw.Close(); err != nil {
		return sum, fmt.Errorf("export: %w", err)
	}
	if err := gz.Close(); err != nil {
		return sum, fmt.Errorf("export: %w", err)
	}
	return sum, nil
}

type file struct {
	abs, name string
	mtime     time.Time
}

// list is every Markdown file of the store's two roots, named as in a data
// dir, in name order.
func list(st *memory.Store) ([]file, error) {
	var out []file
	for _, root := range []struct{ dir, as string }{{st.MemoryDir(), "memory"}, {st.SkillDir(), "skills"}} {
		err := st.FS().WalkDir(root.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == root.dir {
					return fs.SkipDir // no skills/ yet
				}
				return err
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".md") || safefs.IsTempName(d.Name()) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil // gone since the listing
			}
			rel, err := filepath.Rel(root.dir, p)
			if err != nil {
				return err
			}
			out = append(out, file{abs: p, name: root.as + "/" + filepath.ToSlash(rel), mtime: info.ModTime()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("export: list %s: %w", root.dir, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}
