package memmerge

import (
	"bytes"
	"fmt"
	"io/fs"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// MaxSideBytes bounds each of the three versions: the largest file the store
// reads at all (a session log). A larger one is no memory file, and holding
// three of them and git's copies in memory is not worth it: Merge refuses
// it and the caller keeps ours.
const MaxSideBytes = memory.MaxLogBytes

// Result is one merged memory file.
type Result struct {
	// Merged is the file to keep at the merged path: ours when only theirs
	// conflicted, never with a conflict marker Merge made.
	Merged []byte
	// Sibling is their version, kept whole, when it could not be merged into
	// Merged; nil when nothing of theirs is left out.
	Sibling *Sibling
}

// Sibling is their version of a file that conflicted, as an entry of its own.
type Sibling struct {
	// Path is where it goes, slash-separated and relative to the same root
	// as the path Merge was given.
	Path string
	// Data is the file: their header with name: and conflicts_with: set, and
	// their body; their bytes unchanged when their header cannot be read.
	Data []byte
}

// Merge merges one memory file three ways. path is the file's slash-separated
// path in the tree (it names the sibling); base is nil when both sides added
// the file. Ours wins what cannot be merged and theirs becomes the Sibling;
// an error (a side over MaxSideBytes, a path that is not a clean relative
// one, git failing) means nothing was merged and the caller keeps ours.
func Merge(path string, base, ours, theirs []byte) (Result, error) {
	if !fs.ValidPath(path) || path == "." {
		return Result{}, fmt.Errorf("memmerge: %q is not a relative slash-separated path inside the tree", path)
	}
	for _, side := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		if len(side.data) > MaxSideBytes {
			return Result{}, fmt.Errorf("memmerge: %s: %s is %d bytes, more than the %d a memory file may hold", path, side.name, len(side.data), MaxSideBytes)
		}
	}
	if bytes.Equal(ours, theirs) || base != nil && bytes.Equal(base, theirs) {
		return Result{Merged: ours}, nil
	}
	od, oerr := frontmatter.Parse(path, ours)
	td, terr := frontmatter.Parse(path, theirs)
	if terr == nil && base != nil && bytes.Equal(base, ours) {
		return Result{Merged: theirs}, nil
	}
	if oerr != nil || terr != nil {
		// Writing a mix of an unreadable header would keep the damage and lose
		// a side: ours stays byte for byte, theirs is kept beside it.
		return Result{Merged: ours, Sibling: siblingOf(path, od, td, theirs)}, nil
	}
	var bd *frontmatter.Document
	if base != nil {
		// An unreadable base gives no common ground: merged as if both sides
		// had added the file, which keeps every value one of the sides holds.
		bd, _ = frontmatter.Parse(path, base)
	}
	bmeta, bbody := frontmatter.New(), ""
	if bd != nil {
		bmeta, bbody = bd.Meta, bd.Body
	}
	meta := mergeMeta(bmeta, od.Meta, td.Meta, bd != nil)
	body, clean, err := mergeBody(bbody, od.Body, td.Body)
	if err != nil {
		return Result{}, fmt.Errorf("memmerge: %s: %w", path, err)
	}
	res := Result{Merged: render(ours, od, meta, body)}
	if !clean {
		res.Sibling = siblingOf(path, od, td, theirs)
	}
	return res, nil
}

// utf8BOM is kept when ours starts with it: editors that wrote it expect it back.
const utf8BOM = "\ufeff"

// render writes meta and body as the file orig was: orig itself when nothing
// changed (so a file the writer would reorder is left alone), else encoded.
func render(orig []byte, doc *frontmatter.Document, meta *frontmatter.Meta, body string) []byte {
	if body == doc.Body && sameMeta(doc.Meta, meta) {
		return orig
	}
	return encode(orig, doc.HasFrontMatter, meta, body)
}

// encode writes the header in the compat form with orig's line ends and byte
// order mark, then the body; a file that had no header gets none while it
// has no keys.
func encode(orig []byte, framed bool, meta *frontmatter.Meta, body string) []byte {
	var b bytes.Buffer
	if bytes.HasPrefix(orig, []byte(utf8BOM)) {
		b.WriteString(utf8BOM)
	}
	if !framed && meta.Len() == 0 {
		b.WriteString(body)
		return b.Bytes()
	}
	header := frontmatter.Render(meta, "")
	if bytes.HasPrefix(bytes.TrimPrefix(orig, []byte(utf8BOM)), []byte(frontmatter.Delim+"\r\n")) {
		header = bytes.ReplaceAll(header, []byte("\n"), []byte("\r\n"))
	}
	b.Write(header)
	b.WriteString(body)
	return b.Bytes()
}

// sameMeta reports whether a and b hold the same keys in the same order with the same values.
func sameMeta(a, b *frontmatter.Meta) bool {
	ak, bk := a.Keys(), b.Keys()
	if len(ak) != len(bk) {
		return false
	}
	for i, k := range ak {
		if bk[i] != k || a.Value(k) != b.Value(k) {
			return false
		}
	}
	return true
}
