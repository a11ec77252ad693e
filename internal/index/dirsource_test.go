package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/index/rank"
)

// dirSource is a minimal markdown Source for tests: every *.md under root,
// flat front-matter (name, description, type, score, related, tags), kind
// from the first directory level.
type dirSource struct{ root string }

func (s dirSource) Scan(ctx context.Context) ([]FileRef, error) { return s.scanFrom(ctx, s.root) }

// scanFrom is Scan limited to start (a file or a directory below root).
func (s dirSource) scanFrom(_ context.Context, start string) ([]FileRef, error) {
	var out []FileRef
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.root, p)
		kind := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		out = append(out, FileRef{Path: p, Kind: kind, ModTime: info.ModTime(), Size: info.Size()})
		return nil
	})
	return out, err
}

func (s dirSource) Load(_ context.Context, ref FileRef) (rank.Doc, error) {
	b, err := os.ReadFile(ref.Path)
	if err != nil {
		return rank.Doc{}, err
	}
	text := string(b)
	if !strings.HasPrefix(text, "---\n") {
		return rank.Doc{}, fmt.Errorf("%s: no front-matter", ref.Path)
	}
	head, body, ok := strings.Cut(text[4:], "\n---\n")
	if !ok {
		return rank.Doc{}, fmt.Errorf("%s: unterminated front-matter", ref.Path)
	}
	d := rank.Doc{Path: ref.Path, Kind: ref.Kind, Body: strings.TrimSpace(body)}
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "name":
			d.Name = v
		case "description":
			d.Description = v
		case "type":
			d.Type = v
		case "score":
			d.Score, _ = strconv.ParseFloat(v, 64)
		case "related":
			d.Related = splitList(v)
		case "tags":
			d.Tags = splitList(v)
		case "applies_when":
			d.AppliesWhen = v
		}
	}
	return d, nil
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(strings.Trim(v, "[]"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writeNote writes root/kind/name/SKILL.md.
func writeNote(root, kind, name, desc, body string, extra ...string) (string, error) {
	dir := filepath.Join(root, kind, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "SKILL.md")
	fm := "---\nname: " + name + "\ndescription: " + desc + "\n" + strings.Join(extra, "\n")
	if len(extra) > 0 {
		fm += "\n"
	}
	return p, os.WriteFile(p, []byte(fm+"---\n\n"+body+"\n"), 0o644)
}
