package dreamlog

import (
	"fmt"
	"strings"
)

const (
	// diffContext is the unchanged lines shown around each change (diff -u's default).
	diffContext = 3
	// maxDiffCells bounds the line-matching table (lines before × lines
	// after, once the common head and tail are set aside): 4 MiB of int32.
	// Past it the changed middle is shown as removed whole, then added whole.
	maxDiffCells = 1 << 20
)

// Unified is the unified diff (diff -u) turning before into after, with name
// in its --- / +++ header; "" when they are equal. A missing before ("")
// shows a created file, a missing after a removed one.
func Unified(name, before, after string) string {
	if before == after {
		return ""
	}
	a, b := splitLines(before), splitLines(after)
	ops := editScript(a, b)
	from, to := "a/"+name, "b/"+name
	if before == "" {
		from = "/dev/null"
	}
	if after == "" {
		to = "/dev/null"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	writeHunks(&sb, ops)
	return sb.String()
}

// op is one line of an edit script: ' ' kept, '-' removed, '+' added.
type op struct {
	kind byte
	line string
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editScript matches a against b: the common head and tail, then a longest
// common subsequence of the middle (bounded by maxDiffCells).
func editScript(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []op
	for _, l := range a[:head] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, middle(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

func middle(a, b []string) []op {
	var ops []op
	if len(a)*len(b) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the common subsequence length of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	return ops
}

// writeHunks writes the changes of ops with diffContext lines around each,
// joining changes whose context overlaps.
func writeHunks(sb *strings.Builder, ops []op) {
	for start := 0; start < len(ops); {
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			return
		}
		lo := max(first-diffContext, 0)
		end, kept := first, 0
		for end < len(ops) && kept <= 2*diffContext {
			if ops[end].kind == ' ' {
				kept++
			} else {
				kept = 0
			}
			end++
		}
		hi := min(end-kept+min(kept, diffContext), len(ops))
		aStart, bStart := lineNumbers(ops, lo)
		var body strings.Builder
		na, nb := 0, 0
		for _, o := range ops[lo:hi] {
			body.WriteByte(o.kind)
			body.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				body.WriteString("\n\\ No newline at end of file\n")
			}
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(sb, "@@ -%s +%s @@\n%s", hunkRange(aStart, na), hunkRange(bStart, nb), body.String())
		start = hi
	}
}

// lineNumbers are the 1-based lines of before and after at ops[k].
func lineNumbers(ops []op, k int) (int, int) {
	a, b := 1, 1
	for _, o := range ops[:k] {
		if o.kind != '+' {
			a++
		}
		if o.kind != '-' {
			b++
		}
	}
	return a, b
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
