package memmerge

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

const (
	// KeyConflictsWith names, in a sibling's header, the entry it conflicts
	// with: the Memory tab shows the pair, and the dream reconciles them.
	KeyConflictsWith = "conflicts_with"
	// conflictInfix joins an entry's name and the hash of their file in a sibling's name.
	conflictInfix = "-conflict-"
	// hashDigits of SHA-256 tell two siblings of one entry apart: the same
	// theirs always lands on the same sibling, so a merge run twice writes one.
	hashDigits = 8
)

// place is where a sibling goes and what its header says.
type place struct {
	path string // tree path, slash-separated
	name string // its name:
	of   string // its conflicts_with:
}

// siblingOf keeps theirs as a sibling of the file at p. od and td are the
// parsed sides, nil when unreadable: an unreadable theirs is kept byte for
// byte (rewriting it would alter what nobody could read).
func siblingOf(p string, od, td *frontmatter.Document, theirs []byte) *Sibling {
	name := ""
	if od != nil {
		name = strings.TrimSpace(od.Meta.Value(memory.KeyName))
	}
	pl := placeSibling(p, name, shortHash(theirs))
	if td == nil {
		return &Sibling{Path: pl.path, Data: theirs}
	}
	meta := td.Meta.Clone()
	meta.Set(memory.KeyName, pl.name)
	if meta.Value(memory.KeyDescription) == "" {
		// A profile has no description, and knowledge without one is listed blank.
		meta.Set(memory.KeyDescription, "another machine's version of "+p+", kept when both machines changed the same lines")
	}
	meta.Set(KeyConflictsWith, pl.of)
	return &Sibling{Path: pl.path, Data: encode(theirs, true, meta, td.Body)}
}

// placeSibling chooses the sibling's place for the file at p, whose entry is
// called name ("" when unknown), and h, the hash of their file (see the
// package doc for the layout).
func placeSibling(p, name, h string) place {
	segs := strings.Split(p, "/")
	n := len(segs)
	file, dir := segs[n-1], segs[:n-1]
	suffix := conflictInfix + h
	or := func(fallback string) string {
		if name != "" {
			return name
		}
		return fallback
	}
	switch {
	case file == "SKILL.md" && n >= 2:
		folder := segs[n-2]
		return place{path: path.Join(append(slices.Clone(segs[:n-2]), folder+suffix, file)...), name: or(folder) + suffix, of: or(folder)}
	case file == "INTENT.md" && n >= 3 && slices.Contains(segs[:n-2], "intentions"):
		id := segs[n-2]
		mem := segs[:slices.Index(segs[:n-2], "intentions")]
		return knowledgeSibling(mem, id+suffix, or(id))
	case file == "about_me.md":
		return knowledgeSibling(dir, "about_me"+suffix, p)
	case file == "about_user.md" && n >= 3 && segs[n-3] == "users":
		return knowledgeSibling(segs[:n-3], "about_user-"+segs[n-2]+suffix, p)
	case file == "about_user.md":
		return knowledgeSibling(dir, "about_user-default"+suffix, p)
	}
	ext := path.Ext(file)
	stem := strings.TrimSuffix(file, ext)
	return place{path: path.Join(append(slices.Clone(dir), stem+suffix+ext)...), name: or(stem) + suffix, of: or(stem)}
}

// knowledgeSibling places a sibling as the knowledge entry called name under the memory folder mem.
func knowledgeSibling(mem []string, name, of string) place {
	return place{path: path.Join(append(slices.Clone(mem), "knowledge", name, "SKILL.md")...), name: name, of: of}
}

// shortHash names their version in a sibling's name.
func shortHash(theirs []byte) string {
	sum := sha256.Sum256(theirs)
	return hex.EncodeToString(sum[:])[:hashDigits]
}

// LooksLikeSibling says whether an entry's folder (or name) has a
// sibling's shape, <name>-conflict-<8 hex>: a cheap filter before its
// header's conflicts_with, the truth, is read.
func LooksLikeSibling(folder string) bool {
	i := strings.LastIndex(folder, conflictInfix)
	if i <= 0 {
		return false
	}
	h := folder[i+len(conflictInfix):]
	if len(h) != hashDigits {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
