package share

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/team"
	"github.com/somni-dev/somni/internal/textcut"
)

// Dir is the proposals' folder in the memory root: memory/proposals/TEAM/
// NAME.md. Not a folder of the store's layout, so nothing reads a proposal
// as an entry (recall, hints, doctor, the dreamer, the Memory tab's list).
const Dir = "proposals"

// MaxProposals bounds the proposals waiting at once: a model that proposes
// in a loop is told to stop, not given a folder of thousands.
const MaxProposals = 100

// Front-matter keys of a proposal file, besides name, description and type.
const (
	keyTeam     = "team"
	keyProposed = "proposed"
	keySession  = "session"
	// KeyShared is the day an approved share was written into the pool.
	KeyShared = "shared"
)

// Refusal is a share refused for something its caller can change, in one
// sentence; nothing was written.
type Refusal struct {
	Arg string // the argument at fault (team, name, body …), "" for none in particular
	Msg string
}

func (r *Refusal) Error() string { return r.Msg }

func refuse(arg, format string, a ...any) error {
	return &Refusal{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// Pool is a mounted team pool with the store that writes it (team.Pool.Open).
type Pool = team.Opened

// Shares is the share machinery of one data dir: its proposals, kept in
// the personal memory, and the pools this process mounts.
type Shares struct {
	st    *memory.Store
	pools []Pool
	// Who names the person for shared_by; nil: Who (git's user.name, else
	// the system's user name).
	Who func(team.Pool) string
}

// New is the share machinery over the personal store st and the mounted pools.
func New(st *memory.Store, pools []Pool) *Shares {
	return &Shares{st: st, pools: pools}
}

// Proposal is one share waiting for a person's approval.
type Proposal struct {
	ID          string `json:"id"` // TEAM/NAME (NAME as its folder will be named)
	Team        string `json:"team"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Body        string `json:"body"`
	Proposed    string `json:"proposed"`          // local time, YYYY-MM-DDTHH:MM:SS
	Session     string `json:"session,omitempty"` // the conversation it came from
	Path        string `json:"-"`                 // its file
}

// When is the proposal's time as a person reads it (YYYY-MM-DD HH:MM).
func (p Proposal) When() string {
	if t := dates.ParseTime(p.Proposed); !t.IsZero() {
		return t.Format(dates.MinuteLayout)
	}
	return p.Proposed
}

// Input is what a proposal says: the entry to share and where.
type Input struct {
	Team, Name, Type, Description, Body string
	Session                             string // "" for none
}

// dir is the proposals' folder.
func (s *Shares) dir() string { return filepath.Join(s.st.MemoryDir(), Dir) }

// pool is the mounted pool named name, or a refusal naming the mounted ones.
func (s *Shares) pool(name string) (Pool, error) {
	name = strings.TrimSpace(name)
	names := make([]string, 0, len(s.pools))
	for _, p := range s.pools {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return Pool{}, refuse("team", "no team pool is mounted, so there is no team %q to share with (somni-sidecar team add NAME FOLDER|REMOTE mounts one)", textcut.Clip(name, 40, "…"))
	}
	return Pool{}, refuse("team", "no team %q is mounted; the mounted teams are %s", textcut.Clip(name, 40, "…"), strings.Join(names, ", "))
}

// Teams are the names of the mounted pools, in mount order.
func (s *Shares) Teams() []string {
	out := make([]string, 0, len(s.pools))
	for _, p := range s.pools {
		out = append(out, p.Name)
	}
	return out
}

// Propose checks in and writes it as a proposal that waits for a person;
// the pool is not touched. A secret in any field, a name or type the
// store's create would refuse, an entry the pool already has, a proposal
// of that name already waiting: each a Refusal, and no file is written.
func (s *Shares) Propose(ctx context.Context, in Input) (Proposal, error) {
	pl, err := s.pool(in.Team)
	if err != nil {
		return Proposal{}, err
	}
	p := Proposal{Team: pl.Name, Name: strings.TrimSpace(in.Name), Type: entryType(in.Type),
		Description: strings.TrimSpace(in.Description), Body: in.Body,
		Proposed: s.st.Now().Format(dates.TimeLayout)}
	if err := checkEntry(memory.KnowledgeInput{Name: p.Name, Type: p.Type, Description: p.Description, Body: p.Body}); err != nil {
		return Proposal{}, err
	}
	if sess := textcut.OneLine(strings.TrimSpace(in.Session)); sess != "" {
		if _, secret := memory.NameWithoutSecrets(sess); !secret {
			p.Session = textcut.ClipBytes(sess, 200, "")
		}
	}
	if err := inPool(ctx, pl, p.Name, p.Description); err != nil {
		return Proposal{}, err
	}
	folder, _ := memory.SafeName(p.Name) // checkEntry passed: it is one
	p.ID, p.Path = pl.Name+"/"+folder, filepath.Join(s.dir(), pl.Name, folder+".md")
	if all, err := s.List(ctx); err != nil {
		return Proposal{}, err
	} else if len(all) >= MaxProposals {
		return Proposal{}, refuse("", "%d proposals already wait for a person (somni-sidecar share list); no more until some are approved or rejected", len(all))
	}
	data := p.render()
	if _, changed := frontmatter.Redact(p.Path, data); changed {
		// Every field passed alone; together (a key beside a value) they do not.
		return Proposal{}, refuse("", "the proposal as a file holds what looks like a secret; take it out and propose again")
	}
	if err := s.st.WriteNew(p.Path, data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Proposal{}, refuse("name", "a proposal %s already waits for a person's approval (somni-sidecar share list); propose under another name, or wait until it is approved or rejected", p.ID)
		}
		return Proposal{}, fmt.Errorf("share: write the proposal: %w", err)
	}
	return p, nil
}

// entryType is a proposal's type as written: lower case, fact when none.
func entryType(t string) string {
	if t = strings.ToLower(strings.TrimSpace(t)); t == "" {
		return "fact"
	}
	return t
}

// checkEntry refuses a secret in any field first (naming its kind), then
// what the store's create would refuse (memory.CheckKnowledge).
func checkEntry(in memory.KnowledgeInput) error {
	if err := checkSecrets(field{"name", in.Name}, field{"entry_type", in.Type}, field{"description", in.Description}, field{"body", in.Body}); err != nil {
		return err
	}
	if n := len(in.Name) + len(in.Type) + len(in.Description) + len(in.Body); n > memory.MaxEntryBytes/2 {
		return refuse("body", "the entry is %d bytes; a memory entry is a note, at most %d", n, memory.MaxEntryBytes/2)
	}
	if err := memory.CheckKnowledge(in); err != nil {
		arg := "name"
		switch msg := err.Error(); {
		case strings.Contains(msg, "entry_type"):
			arg = "entry_type"
		case strings.Contains(msg, "description"):
			arg = "description"
		case strings.Contains(msg, "body"):
			arg = "body"
		}
		return refuse(arg, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "memory: "), "invalid input: "))
	}
	return nil
}

// inPool refuses an entry the pool already holds (the store's duplicate
// check: same name, same folder, or a description saying the same).
func inPool(ctx context.Context, pl Pool, name, desc string) error {
	dup, why, err := pl.Store.FindDuplicate(ctx, memory.KindKnowledge, name, desc, "")
	if err != nil {
		return fmt.Errorf("share: read team %s: %w", pl.Name, err)
	}
	if dup != nil {
		return refuse("name", "team %s already has %q (%s, %s); a teammate's entry is never overwritten: share under another name, or leave theirs", pl.Name, dup.Name, pl.RelPath(dup.Path), why)
	}
	return nil
}

// render is the proposal's file: somni's Markdown with front-matter.
func (p Proposal) render() []byte {
	m := frontmatter.New()
	m.Set(memory.KeyName, p.Name)
	m.Set(memory.KeyDescription, p.Description)
	m.Set(memory.KeyType, p.Type)
	m.Set(keyTeam, p.Team)
	m.Set(keyProposed, p.Proposed)
	if p.Session != "" {
		m.Set(keySession, p.Session)
	}
	body := p.Body
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return frontmatter.Render(m, body)
}

// parseID splits TEAM/NAME and returns the proposal file it names.
func (s *Shares) parseID(id string) (teamName, path string, err error) {
	id = strings.TrimSpace(id)
	teamName, name, ok := strings.Cut(id, "/")
	if !ok || team.CheckName(teamName) != nil {
		return "", "", refuse("id", "%q is not a proposal id (TEAM/NAME, as somni-sidecar share list shows it)", textcut.Clip(id, 80, "…"))
	}
	if safe, err := memory.SafeName(name); err != nil || safe != name {
		return "", "", refuse("id", "%q is not a proposal id (TEAM/NAME, as somni-sidecar share list shows it)", textcut.Clip(id, 80, "…"))
	}
	return teamName, filepath.Join(s.dir(), teamName, name+".md"), nil
}

// Get reads the proposal id (TEAM/NAME) with the version read.
func (s *Shares) Get(id string) (Proposal, safefs.Version, error) {
	teamName, path, err := s.parseID(id)
	if err != nil {
		return Proposal{}, safefs.Version{}, err
	}
	data, ver, err := s.st.FS().ReadVersion(path, memory.MaxEntryBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Proposal{}, safefs.Version{}, refuse("id", "no proposal %s waits (somni-sidecar share list shows those that do)", strings.TrimSpace(id))
	}
	if err != nil {
		return Proposal{}, safefs.Version{}, fmt.Errorf("share: read proposal %s: %w", id, err)
	}
	p, err := parse(path, data)
	if err != nil {
		return Proposal{}, safefs.Version{}, err
	}
	p.ID, p.Team = teamName+"/"+strings.TrimSuffix(filepath.Base(path), ".md"), teamName
	return p, ver, nil
}

func parse(path string, data []byte) (Proposal, error) {
	doc, err := frontmatter.Parse(path, data)
	if err != nil {
		return Proposal{}, fmt.Errorf("share: proposal %s: %w", path, err)
	}
	m := doc.Meta
	return Proposal{Name: m.Value(memory.KeyName), Type: m.Value(memory.KeyType), Description: m.Value(memory.KeyDescription),
		Body: strings.TrimLeft(doc.Body, "\n"), Proposed: m.Value(keyProposed), Session: m.Value(keySession), Path: path}, nil
}

// List reads every proposal waiting, oldest first; an unreadable file is
// logged and left out (share reject TEAM/NAME still removes it).
func (s *Shares) List(ctx context.Context) ([]Proposal, error) {
	fsys := s.st.FS()
	teams, err := fsys.ReadDir(s.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("share: list proposals: %w", err)
	}
	var out []Proposal
	for _, td := range teams {
		if !td.IsDir() || team.CheckName(td.Name()) != nil {
			continue
		}
		files, err := fsys.ReadDir(filepath.Join(s.dir(), td.Name()))
		if err != nil {
			return nil, fmt.Errorf("share: list proposals: %w", err)
		}
		for _, f := range files {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			name, ok := strings.CutSuffix(f.Name(), ".md")
			if !ok || !f.Type().IsRegular() || safefs.IsTempName(f.Name()) {
				continue
			}
			p, _, err := s.Get(td.Name() + "/" + name)
			if err != nil {
				s.st.Logger().Warn("share: an unreadable proposal is left out", "id", td.Name()+"/"+name, "err", err)
				continue
			}
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Proposed != out[j].Proposed {
			return out[i].Proposed < out[j].Proposed
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Reject removes the proposal id and leaves nothing of it: its file, and
// its team's folder and the proposals' folder when they are left empty.
func (s *Shares) Reject(_ context.Context, id string) (Proposal, error) {
	p, _, err := s.Get(id)
	if err != nil {
		return Proposal{}, err
	}
	if err := s.remove(p); err != nil {
		return Proposal{}, err
	}
	return p, nil
}

// remove deletes a proposal's file, then the folders it leaves empty.
func (s *Shares) remove(p Proposal) error {
	fsys := s.st.FS()
	if err := fsys.Remove(p.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("share: remove proposal %s: %w", p.ID, err)
	}
	// Remove takes only an empty folder: one a proposal still uses stays.
	_ = fsys.Remove(filepath.Dir(p.Path))
	_ = fsys.Remove(s.dir())
	return nil
}

// now is the store's clock.
func (s *Shares) now() time.Time { return s.st.Now() }
