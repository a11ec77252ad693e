// Package frontmatter is the file format of the Markdown store: the header
// between `---` lines at the top of a file, read leniently (YAML first, then
// the flat `key: value` form) and written in the compat key order, unknown
// keys kept in their order, unchanged values byte for byte and bodies as
// they were. Values are always the text that was written (`123-456`, `0.5`
// and `2026-01-02` never change type), so a rewrite reproduces what it read.
// A header that cannot be read is a ParseError naming path:line.
//
// Files, by job:
//
//	frontmatter.go  Meta (the ordered keys and values), Parse/Render of a Document, QuoteValue;
//	                the YAML reader with its alias-bomb bound, the flat reader
//	split.go        Delim and splitFrontMatter, the one rule for where a header starts and ends;
//	                Strip and ParseHead (a header from a file's first bytes); frameOf, the same rule as offsets
//	redact.go       Redact: a file's bytes as they may reach disk, with the secrets of its header
//	                (comment lines, comments after values, values beside their keys) and body redacted
package frontmatter
