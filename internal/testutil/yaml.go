package testutil

import (
	"fmt"
	"strings"
)

// BillionLaughs is the classic YAML alias bomb as a memory file: nine
// levels of nine aliases, 9^9 values once expanded.
func BillionLaughs() string {
	var b strings.Builder
	b.WriteString("---\nname: lol\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 9), ", "))
	}
	b.WriteString("---\n\nbody\n")
	return b.String()
}
