package browse

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/doctor"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/safefs"
)

// WriteResult is memory.write's answer.
type WriteResult struct {
	Version  string `json:"version"`
	Redacted int    `json:"redacted"` // secrets the store's write redacted
}

// Write answers memory.write: raw replaces the entry file at rel if it still
// holds the bytes version names (else a *Conflict with what it holds now).
// raw must pass the checks doctor applies to one file; the store redacts it
// on the way to disk like every write (memory.Editor.ReplaceText).
func (b *Browser) Write(ctx context.Context, rel, raw, version string) (WriteResult, error) {
	f, err := b.entryFile(rel, true)
	if err != nil {
		return WriteResult{}, err
	}
	if strings.TrimSpace(version) == "" {
		return WriteResult{}, invalid("version is required (the one memory.read returned)")
	}
	if len(raw) > MaxRawBytes {
		return WriteResult{}, invalid("raw is %d bytes, over the %d-byte limit of a memory file", len(raw), MaxRawBytes)
	}
	if err := checkEdit(f, []byte(raw)); err != nil {
		return WriteResult{}, err
	}
	ver, err := b.ed.ReplaceText(ctx, f.abs, []byte(raw), b.expect(f, version))
	if errors.Is(err, safefs.ErrChanged) {
		// Another process wrote between our read and our swap.
		err = b.conflict(f)
	}
	if err != nil {
		if _, ok := IsConflict(err); ok {
			return WriteResult{}, err
		}
		return WriteResult{}, fileErr(f.rel, err)
	}
	written := ver.Data()
	n := strings.Count(string(written), redact.Marker) - strings.Count(raw, redact.Marker)
	return WriteResult{Version: Token(written), Redacted: max(n, 0)}, nil
}

// checkEdit refuses a hand edit that would leave a file the store cannot use:
// its front-matter must parse, and an entry must have what doctor requires
// of one (name, description, a body; dates that read as dates). Links to
// names that do not exist are not refused: doctor reports them as it would.
func checkEdit(f file, raw []byte) error {
	doc, err := frontmatter.Parse(f.abs, raw)
	if err != nil {
		return invalid("%s: front-matter does not parse: %v", f.rel, err)
	}
	if f.kind == memory.KindIdentity {
		return nil
	}
	if !doc.HasFrontMatter {
		return invalid("%s: no front-matter (a --- block with name and description)", f.rel)
	}
	e := &memory.Entry{Kind: f.kind, Path: f.abs, Meta: doc.Meta, Body: doc.Body}
	var why []string
	for _, fd := range doctor.CheckEntry(e, nil) {
		if fd.Kind != "orphan-link" {
			why = append(why, fd.Reason)
		}
	}
	if len(why) > 0 {
		return invalid("%s: %s", f.rel, strings.Join(why, "; "))
	}
	return nil
}

// expect is the compare of a compare-and-swap: the bytes on disk must be the
// ones version names ("" accepts any).
func (b *Browser) expect(f file, version string) func([]byte) error {
	return func(current []byte) error {
		if version == "" || Token(current) == version {
			return nil
		}
		return &Conflict{Path: f.rel, Current: string(current), Version: Token(current)}
	}
}

// conflict reads what f holds now for a Conflict.
func (b *Browser) conflict(f file) error {
	c := &Conflict{Path: f.rel}
	if cur, err := b.store.FS().ReadFile(f.abs, memory.MaxEntryBytes); err == nil {
		c.Current, c.Version = string(cur), Token(cur)
	}
	return c
}

// NewEntry is a knowledge entry a person writes in the tab (memory.create).
type NewEntry struct {
	Name        string // its name and folder, as the dreamer's names
	Type        string // a knowledge type (memory.KnowledgeTypes); "" is fact
	Description string // one sentence: recall matches it first
	Body        string
}

// Create answers memory.create: a knowledge entry written by hand through
// the dreamer's own create (its checks of name, type and duplicates, its
// redaction), verified, since a person wrote it. An entry that exists
// under the name or says the same is refused naming it: edit that one.
// It returns the new file, relative to the data directory.
func (b *Browser) Create(ctx context.Context, in NewEntry) (string, error) {
	if n := len(in.Name) + len(in.Type) + len(in.Description) + len(in.Body); n > MaxRawBytes {
		return "", invalid("the entry is %d bytes, over the %d-byte limit of a memory file", n, MaxRawBytes)
	}
	typ := strings.TrimSpace(in.Type)
	if typ == "" {
		typ = "fact"
	}
	e, err := b.store.CreateKnowledge(ctx, memory.KnowledgeInput{
		Name: strings.TrimSpace(in.Name), Type: typ, Description: strings.TrimSpace(in.Description), Body: in.Body, Verified: true,
	})
	var dup *memory.DuplicateError
	if errors.As(err, &dup) {
		return "", invalid("%q already exists (%s, %s): open it and edit it instead", dup.Existing.Name, b.store.Rel(dup.Existing.Path), dup.Why)
	}
	if err != nil {
		return "", err
	}
	return b.store.Rel(e.Path), nil
}

// Restore answers memory.restore: the undo of Forget, an archived entry
// put back among the active ones (memory.Editor.RestoreEntry), checked
// against version under the write lock; it returns the restored file,
// relative to the data directory.
func (b *Browser) Restore(ctx context.Context, rel, version string) (string, error) {
	f, err := b.entryFile(rel, false)
	if err != nil {
		return "", err
	}
	dest, err := b.ed.RestoreEntry(ctx, f.abs, b.expect(f, version)) // "" accepts whatever is there
	if err != nil {
		return "", moveErr(f, err)
	}
	return b.store.Rel(dest), nil
}

// moveErr is how a move of f (Forget, Restore) failed, as the tab shows it:
// a conflict and a refusal as they are, anything else as what went wrong
// with the file.
func moveErr(f file, err error) error {
	if _, ok := IsConflict(err); ok || errors.Is(err, memory.ErrInvalid) {
		return err
	}
	return fileErr(f.rel, err)
}

// Pin answers memory.pin: pinned: true in the front-matter (removed when
// false) through the store's rewrite, which keeps every other byte; pinned
// entries are skipped by decay, retirement and expiry (memory.DecayAll).
func (b *Browser) Pin(ctx context.Context, rel string, pinned bool, version string) (string, error) {
	f, err := b.entryFile(rel, false)
	if err != nil {
		return "", err
	}
	expect := b.expect(f, version)
	e, err := b.ed.Rewrite(ctx, f.abs, func(e *memory.Entry) error {
		if err := expect(e.Raw()); err != nil {
			return err
		}
		if pinned {
			e.Meta.Set(memory.KeyPinned, "true")
		} else {
			e.Meta.Delete(memory.KeyPinned)
		}
		return nil
	})
	if _, ok := IsConflict(err); ok {
		return "", err
	}
	if errors.Is(err, memory.ErrIncomplete) {
		return "", invalid("%s is not a complete entry (no name or description); mend it first", f.rel)
	}
	if err != nil {
		return "", fileErr(f.rel, err)
	}
	return Token(e.Raw()), nil
}

// Forget answers memory.forget: the entry is archived exactly as decay
// retires one (memory.Editor.ArchiveEntry; an intention is cancelled,
// intentions.Book.CancelFile), never deleted. It returns the archived file's path.
func (b *Browser) Forget(ctx context.Context, rel, version string) (string, error) {
	f, err := b.entryFile(rel, false)
	if err != nil {
		return "", err
	}
	archive := b.ed.ArchiveEntry
	if f.kind == memory.KindIntention {
		archive = intentions.Of(b.store).CancelFile
	}
	dest, err := archive(ctx, f.abs, b.expect(f, version)) // "" accepts whatever is there
	if err != nil {
		return "", moveErr(f, err)
	}
	if info, err := b.store.FS().Stat(dest); err == nil && info.IsDir() {
		dest = filepath.Join(dest, filepath.Base(f.abs))
	}
	return b.store.Rel(dest), nil
}
