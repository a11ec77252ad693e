package lazyre

import "testing"

func TestNew(t *testing.T) {
	re := New(`a(b+)`)
	if re() != re() {
		t.Fatal("compiled twice")
	}
	if got := re().FindStringSubmatch("xabbb")[1]; got != "bbb" {
		t.Fatalf("match %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a bad pattern did not panic on first use")
		}
	}()
	bad := New(`a(`) // no panic yet
	bad()
}
