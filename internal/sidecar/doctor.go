package sidecar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/somni-dev/somni/internal/memory"
)

// Finding is one thing `somni-sidecar doctor` reports.
type Finding struct {
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Kind   string `json:"kind"` // unparsable | refused | incomplete | duplicate-name | orphan-link | bad-date | profile-folder | install
	Reason string `json:"reason"`
}

func (f Finding) String() string {
	if f.Path == "" {
		return fmt.Sprintf("%s: %s", f.Kind, f.Reason)
	}
	loc := f.Path
	if strings.IndexFunc(loc, unicode.IsControl) >= 0 {
		loc = strconv.Quote(loc) // a folder named with a newline must not forge a report line
	}
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	return fmt.Sprintf("%s: %s: %s", loc, f.Kind, f.Reason)
}

// dateKeys are the front-matter keys that must hold ISO dates.
var dateKeys = []string{memory.KeyCreated, memory.KeyLastUsed, memory.KeyLastDecay}

// Doctor checks a data directory without changing it: unparsable files
// (with line), names used by more than one entry, `related:` links to
// nothing, and dates that do not parse. Findings are sorted by path.
func Doctor(ctx context.Context, st *memory.Store) ([]Finding, error) {
	var out []Finding
	kinds := []memory.Kind{memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention}
	entries, problems, err := st.List(ctx, kinds...)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	for _, p := range problems {
		kind := "unparsable"
		if p.Refused {
			kind = "refused"
		}
		out = append(out, Finding{Path: p.Path, Line: p.Line, Kind: kind, Reason: p.Reason})
	}
	refused, err := st.Audit(ctx)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	seen := map[string]bool{}
	for _, f := range out {
		seen[f.Path] = true
	}
	for _, p := range refused {
		if !seen[p.Path] {
			out = append(out, Finding{Path: p.Path, Kind: "refused", Reason: p.Reason})
		}
	}
	// Identity files and session logs are read on every prompt or dream.
	out = append(out, checkIdentity(st)...)
	out = append(out, checkUserFolders(st)...)
	logs, err := st.SessionLogFiles(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	for _, l := range logs {
		if f, ok := checkParses(st, l); !ok {
			out = append(out, f)
		}
	}

	names := map[string][]*memory.Entry{} // lower-cased name → entries
	known := map[string]bool{}            // names and directory names a link may use
	for _, e := range entries {
		key := strings.ToLower(e.Name)
		names[key] = append(names[key], e)
		known[key] = true
		known[strings.ToLower(filepath.Base(filepath.Dir(e.Path)))] = true
	}
	for _, es := range names {
		if len(es) < 2 {
			continue
		}
		for _, e := range es {
			var others []string
			for _, o := range es {
				if o != e {
					others = append(others, o.Path)
				}
			}
			out = append(out, Finding{Path: e.Path, Kind: "duplicate-name",
				Reason: fmt.Sprintf("name %q is also used by %s", e.Name, strings.Join(others, ", "))})
		}
	}
	for _, e := range entries {
		if miss := e.Incomplete(); miss != "" {
			out = append(out, Finding{Path: e.Path, Kind: "incomplete", Reason: "no " + miss + " (a file cut short by an editor or a sync tool?)"})
		}
		for _, r := range splitList(e.Meta.Value("related")) {
			if !known[strings.ToLower(r)] {
				out = append(out, Finding{Path: e.Path, Kind: "orphan-link", Reason: fmt.Sprintf("related: %q names no entry", r)})
			}
		}
		for _, k := range dateKeys {
			if v, ok := e.Meta.Get(k); ok && strings.TrimSpace(v) != "" && !isDate(v) {
				out = append(out, Finding{Path: e.Path, Kind: "bad-date", Reason: fmt.Sprintf("%s: %q is not a YYYY-MM-DD date", k, v)})
			}
		}
		if e.Kind == memory.KindIntention {
			if v := e.BodyField("due"); v != "" && !isDate(v) {
				out = append(out, Finding{Path: e.Path, Kind: "bad-date", Reason: fmt.Sprintf("due: %q is not a YYYY-MM-DD date", v)})
			}
		}
		if e.Kind == memory.KindEpisode {
			if v := e.BodyField("when"); v != "" && parseWhen(v).IsZero() {
				out = append(out, Finding{Path: e.Path, Kind: "bad-date", Reason: fmt.Sprintf("when: %q is not a date", v)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

func isDate(v string) bool {
	_, err := time.Parse("2006-01-02", strings.TrimSpace(v))
	return err == nil
}

// checkIdentity reports identity files that exist but cannot be parsed.
func checkIdentity(st *memory.Store) []Finding {
	var out []Finding
	paths := []string{filepath.Join(st.MemoryDir(), "about_me.md"), filepath.Join(st.MemoryDir(), "about_user.md")}
	users, _ := filepath.Glob(filepath.Join(st.MemoryDir(), "users", "*", "about_user.md"))
	paths = append(paths, users...)
	for _, p := range paths {
		if f, ok := checkParses(st, p); !ok {
			out = append(out, f)
		}
	}
	return out
}

// checkUserFolders reports profile folders under memory/users/ that no user id reads: a folder name
// that is not a usable id, a front-matter user_id the folder does not match, and profiles in the folder
// an older somni mapped a `channel:user` id to (feishu-ou_123 for feishu:ou_123), which the Python
// sidecar never finds. A profile nobody reads vanishes silently from every prompt.
func checkUserFolders(st *memory.Store) []Finding {
	root := filepath.Join(st.MemoryDir(), "users")
	des, err := os.ReadDir(root)
	if err != nil {
		return nil // no users/ yet
	}
	var out []Finding
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		name := de.Name()
		file := filepath.Join(root, name, "about_user.md")
		if _, err := os.Lstat(file); err != nil {
			continue
		}
		report := func(format string, args ...any) {
			out = append(out, Finding{Path: file, Kind: "profile-folder", Reason: fmt.Sprintf(format, args...)})
		}
		dir, err := memory.UserDirName(name)
		if err != nil || dir != name {
			report("no user id maps to folder %q (%s): this profile is never read; rename the folder to the user's id", name, orReason(err, "the id would use folder "+strconv.Quote(dir)))
			continue
		}
		p, err := st.AboutUser(name)
		if err != nil || p == nil || filepath.Clean(p.Path) != filepath.Clean(file) {
			continue // unparsable ones are reported by checkIdentity
		}
		uid := strings.TrimSpace(p.Meta.Value("user_id"))
		if uid == "" || uid == name {
			continue
		}
		if mapped, err := memory.SafeName(uid); err == nil && mapped == name {
			if cur, err := st.UserProfilePath(uid); err == nil && fileExists(cur) {
				report("user %q has a newer profile in %s; this older copy is not read: merge anything missing and remove this folder", uid, cur)
			} else {
				report("user %q's profile is in the folder older somni versions used; somni reads it, the Python sidecar looks in users/%s/: the next profile update moves it there", uid, uid)
			}
			continue
		}
		report("front-matter user_id %q does not match folder %q: the profile is read as user %q's, never as %q's", uid, name, name, uid)
	}
	return out
}

func orReason(err error, other string) string {
	if err != nil {
		return err.Error()
	}
	return other
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// checkParses reports whether the file at p (if it exists) has readable
// front-matter; it reads through the store, so a link out is refused, not followed.
func checkParses(st *memory.Store, p string) (Finding, bool) {
	err := st.CheckFile(p)
	if err == nil {
		return Finding{}, true
	}
	f := Finding{Path: p, Kind: "unparsable", Reason: err.Error()}
	var pe *memory.ParseError
	if errors.As(err, &pe) {
		f.Line, f.Reason = pe.Line, pe.Reason
	}
	return f, false
}

// Stats is what `somni-sidecar stats` prints.
type Stats struct {
	DataDir        string         `json:"dataDir"`
	Entries        map[string]int `json:"entries"` // by kind
	Unparsable     int            `json:"unparsable"`
	OpenIntentions int            `json:"openIntentions"`
	PendingLogs    int            `json:"pendingLogs"`
	SessionLogs    int            `json:"sessionLogs"`
	Index          *IndexStats    `json:"index,omitempty"`
}

// IndexStats summarises the recall index.
type IndexStats struct {
	Embedder      string    `json:"embedder"`
	SemanticReady bool      `json:"semanticReady"`
	Entries       int       `json:"entries"`
	LastSync      time.Time `json:"lastSync"`
}

// CollectStats counts entries by kind and reports the index after a sync.
func (s *Server) CollectStats(ctx context.Context) (Stats, error) {
	st := Stats{DataDir: s.store.DataDir(), Entries: map[string]int{}}
	entries, problems, err := s.store.List(ctx, memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention)
	if err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	for _, e := range entries {
		st.Entries[string(e.Kind)]++
	}
	st.Unparsable = len(problems)
	st.OpenIntentions = st.Entries[string(memory.KindIntention)]
	if logs, err := s.store.PendingLogs(); err == nil {
		st.PendingLogs = len(logs)
	}
	if all, err := s.store.SessionLogFiles(ctx, true); err == nil {
		st.SessionLogs = len(all)
	}
	ix, err := s.Index(ctx)
	if err != nil {
		return st, err
	}
	if _, err := ix.Sync(ctx); err != nil {
		return st, fmt.Errorf("stats: sync index: %w", err)
	}
	is := ix.Status()
	st.Index = &IndexStats{Embedder: is.Embedder, SemanticReady: is.SemanticReady, Entries: is.Entries, LastSync: is.LastSync}
	return st, nil
}
