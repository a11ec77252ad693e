package share

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/team"
	"github.com/somni-dev/somni/internal/textcut"
)

// Shared is an entry written into a pool.
type Shared struct {
	Pool     team.Pool
	Name     string
	Path     string // the entry's file
	SharedBy string
	// Note says what could not be done beside the write ("" when all was):
	// the lock file could not be kept out of the project's git status.
	Note string
}

// Rel is the entry's path in its pool (knowledge/NAME/SKILL.md).
func (sh Shared) Rel() string { return sh.Pool.RelPath(sh.Path) }

// Next says, in one sentence, how the entry reaches the team: a cloned
// pool's next `team sync` commits and pushes it; a project folder's file
// is the user's to commit with their code.
func (sh Shared) Next() string {
	if sh.Pool.Clone != "" {
		to := sh.Pool.Remote()
		if to == "" {
			to = "the team repository"
		}
		return fmt.Sprintf("the next `somni-sidecar team sync` commits it and pushes it to %s", to)
	}
	return fmt.Sprintf("it is left for you to commit with your code: %s", sh.Path)
}

// Edit is what a person changed in a proposal before approving it; ""
// keeps the proposal's own.
type Edit struct{ Description, Body string }

// Approve writes the proposal id into its team's pool (see write) and then
// removes the proposal. Everything is checked again first — a proposal is
// a file a person may have edited by hand — and a refusal leaves the
// proposal waiting and the pool untouched.
func (s *Shares) Approve(ctx context.Context, id string, ed Edit) (Shared, error) {
	p, _, err := s.Get(id)
	if err != nil {
		return Shared{}, err
	}
	if strings.TrimSpace(ed.Description) != "" {
		p.Description = strings.TrimSpace(ed.Description)
	}
	if strings.TrimSpace(ed.Body) != "" {
		p.Body = ed.Body
	}
	pl, err := s.pool(p.Team)
	if err != nil {
		return Shared{}, refuse("id", "proposal %s is for team %s: %v; reject it, or mount the team and approve it again", p.ID, p.Team, err)
	}
	sh, err := s.write(ctx, pl, memory.KnowledgeInput{Name: p.Name, Type: p.Type, Description: p.Description, Body: p.Body, Verified: true})
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			r.Msg = "proposal " + p.ID + ": " + r.Msg
		}
		return Shared{}, err
	}
	if err := s.remove(p); err != nil {
		return sh, fmt.Errorf("share: %s was shared, but its proposal stays: %w", sh.Rel(), err)
	}
	return sh, nil
}

// Share copies the personal knowledge entry named name into the pool
// named teamName: a person's own act, through the same write and checks
// as an approval.
func (s *Shares) Share(ctx context.Context, name, teamName string) (Shared, error) {
	pl, err := s.pool(teamName)
	if err != nil {
		return Shared{}, err
	}
	e, err := s.st.Find(ctx, name)
	if errors.Is(err, memory.ErrNotFound) || errors.Is(err, memory.ErrUnsafeName) {
		return Shared{}, refuse("name", "your memory has no knowledge entry named %q (somni-sidecar recall WORDS finds it; the name is its folder's)", textcut.Clip(name, 80, "…"))
	}
	if err != nil {
		return Shared{}, fmt.Errorf("share: find %q: %w", name, err)
	}
	if e.Kind != memory.KindKnowledge || e.Archived {
		return Shared{}, refuse("name", "%q is a%s %s, not an active knowledge entry; only knowledge is shared", e.Name, map[bool]string{true: "n archived", false: ""}[e.Archived], e.Kind)
	}
	verified := !strings.EqualFold(strings.TrimSpace(e.Meta.Value("verified")), "false")
	return s.write(ctx, pl, memory.KnowledgeInput{Name: e.Name, Type: e.Type(), Description: e.Description(), Body: e.Body, Verified: verified})
}

// write creates knowledge/<name>/SKILL.md in the pool through the pool's
// store — the dreamer's create, with its name, type and duplicate checks
// and its redaction — after the secret check, which refuses where the
// store would only redact; then gives it shared_by and shared.
func (s *Shares) write(ctx context.Context, pl Pool, in memory.KnowledgeInput) (Shared, error) {
	if err := checkEntry(in); err != nil {
		return Shared{}, err
	}
	if pl.Clone == "" {
		if info, err := os.Stat(pl.Root); err != nil || !info.IsDir() {
			return Shared{}, refuse("team", "team %s's folder %s is not there (is the project checked out on this machine?)", pl.Name, pl.Root)
		}
	}
	var sh Shared
	if err := keepLocksOutOfGit(ctx, pl); err != nil {
		write, _ := pl.Store.LockFiles()
		sh.Note = fmt.Sprintf("the pool's lock file %s could not be kept out of git status (%v); do not commit it", write, err)
	}
	e, err := pl.Store.CreateKnowledge(ctx, in)
	var dup *memory.DuplicateError
	switch {
	case errors.As(err, &dup):
		return Shared{}, refuse("name", "team %s already has %q (%s, %s); a teammate's entry is never overwritten", pl.Name, dup.Existing.Name, pl.RelPath(dup.Existing.Path), dup.Why)
	case errors.Is(err, memory.ErrInvalid) || errors.Is(err, memory.ErrUnsafeName):
		return Shared{}, refuse("name", "%s", strings.TrimPrefix(err.Error(), "memory: "))
	case err != nil:
		return Shared{}, fmt.Errorf("share: write into team %s: %w", pl.Name, err)
	}
	who := s.Who
	if who == nil {
		who = Who
	}
	sh.Pool, sh.Name, sh.Path, sh.SharedBy = pl.Pool, e.Name, e.Path, who(pl.Pool)
	day := dates.Format(s.now())
	_, err = memory.EditorOf(pl.Store).Rewrite(ctx, e.Path, func(x *memory.Entry) error {
		// Lifecycle numbers are each reader's own (recall keeps them on its
		// machine): a shared entry carries none, so no teammate's use
		// rewrites it.
		for _, k := range lifecycleKeys {
			x.Meta.Delete(k)
		}
		x.Meta.Set(team.KeySharedBy, sh.SharedBy)
		x.Meta.Set(KeyShared, day)
		return nil
	})
	if err != nil {
		return sh, fmt.Errorf("share: %s was written into team %s, but not who shared it: %w", sh.Rel(), pl.Name, err)
	}
	return sh, nil
}

// lifecycleKeys are the numbers the store's create writes that a shared
// entry leaves out: its created day stays.
var lifecycleKeys = []string{memory.KeyStability, memory.KeyScore, memory.KeyLastUsed, memory.KeyLastDecay}

// gitWait bounds one git command run to look something up.
const gitWait = 10 * time.Second

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// Who names the person sharing into p for shared_by: git's user.name as
// the pool's repository sees it, else the system's user name; never an
// email address, never more than a line.
func Who(p team.Pool) string {
	dir := p.Clone
	if dir == "" {
		dir = p.Root
	}
	if name, err := git(context.Background(), dir, "config", "--get", "user.name"); err == nil {
		if n := personName(name); n != "" {
			return n
		}
	}
	if u, err := user.Current(); err == nil {
		if n := personName(u.Username); n != "" {
			return n
		}
	}
	return "someone"
}

// personName is a name fit for shared_by: one line, a DOMAIN\ prefix
// dropped, at most 64 characters; "" for an email address or a name that
// holds what looks like a secret.
func personName(s string) string {
	s = textcut.OneLine(s)
	if i := strings.LastIndex(s, `\`); i >= 0 {
		s = s[i+1:]
	}
	if s == "" || strings.Contains(s, "@") {
		return ""
	}
	if _, secret := memory.NameWithoutSecrets(s); secret {
		return ""
	}
	return textcut.Clip(s, 64, "")
}

// excludeHeader opens the lines keepLocksOutOfGit adds.
const excludeHeader = "# somni: the lock files of team pools on this machine (never committed)"

// keepLocksOutOfGit keeps the lock files the pool's store takes out of
// `git status`. A cloned pool needs nothing: sync's own .gitignore of the
// clone lists them. A project folder's pool lists them in the project
// repository's .git/info/exclude — git's place for what one machine
// ignores — so no file of the project changes for it, nothing is left for
// anyone to commit, and a teammate's checkout is not touched. A folder
// outside any git work tree needs nothing either.
func keepLocksOutOfGit(ctx context.Context, pl Pool) error {
	if pl.Clone != "" {
		return nil
	}
	top, err := git(ctx, pl.Root, "rev-parse", "--show-toplevel")
	if err != nil || top == "" {
		return nil // not in a work tree (or no git): no status to keep clean
	}
	exclude, err := git(ctx, pl.Root, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		return fmt.Errorf("find the repository's info/exclude: %w", err)
	}
	if !filepath.IsAbs(exclude) {
		exclude = filepath.Join(pl.Root, exclude)
	}
	root, err := filepath.EvalSymlinks(pl.Root)
	if err != nil {
		return err
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return err
	}
	write, dream := pl.Store.LockFiles()
	var lines []string
	for _, lock := range []string{write, dream} {
		rel, err := filepath.Rel(top, filepath.Join(root, filepath.Base(lock)))
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("%s is not inside the work tree %s", lock, top)
		}
		lines = append(lines, "/"+gitEscape(filepath.ToSlash(rel)))
	}
	return addLines(exclude, lines)
}

// gitEscape quotes a path for an ignore pattern: its wildcards and
// backslashes as themselves.
func gitEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!#`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// addLines appends to the file p the lines it lacks, under excludeHeader,
// as a compare-and-swap on what was read (safefs): an edit made meanwhile
// is never lost, and the next share adds what is still missing.
func addLines(p string, lines []string) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fsys, err := safefs.New(dir)
	if err != nil {
		return err
	}
	data, ver, err := fsys.ReadVersion(p, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add []string
	for _, l := range lines {
		if !have[l] {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return nil
	}
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if !have[excludeHeader] {
		text += excludeHeader + "\n"
	}
	text += strings.Join(add, "\n") + "\n"
	_, err = fsys.Replace(p, []byte(text), ver)
	return err
}
