package ort

import (
	"os"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// The random-weight BERT fixture `make models` builds runs through the
// backend this build has, and bad input is refused before it reaches C.
func TestSessionRun(t *testing.T) {
	lib := testutil.Model(t, "lib", LibraryName)
	model, err := os.ReadFile(testutil.Model(t, "test-bert", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(lib); err != nil {
		t.Fatal(err)
	}
	if err := Load(lib); err != nil {
		t.Fatalf("second Load of the same library: %v", err)
	}
	if _, err := NewSession([]byte("not a model"), []string{"input_ids"}, []string{"x"}, Options{}); err == nil {
		t.Fatal("garbage model accepted")
	}
	inputs := []string{"input_ids", "attention_mask", "token_type_ids"}
	s, err := NewSession(model, inputs, []string{"last_hidden_state"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := []int64{2, 10, 11, 3, 2, 12, 3, 0} // the fixture's vocabulary has 56 tokens
	mask := []int64{1, 1, 1, 1, 1, 1, 1, 0}
	types := make([]int64, 8)
	shape := []int64{2, 4}
	out, err := s.Run([]Int64Tensor{{shape, ids}, {shape, mask}, {shape, types}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Shape) != 3 || out.Shape[0] != 2 || out.Shape[1] != 4 || int64(len(out.Data)) != out.Shape[0]*out.Shape[1]*out.Shape[2] {
		t.Fatalf("output shape %v with %d values", out.Shape, len(out.Data))
	}
	if _, err := s.Run([]Int64Tensor{{shape, ids[:7]}, {shape, mask}, {shape, types}}); err == nil || !strings.Contains(err.Error(), "values") {
		t.Fatalf("short input: err %v", err)
	}
	if _, err := s.Run(nil); err == nil {
		t.Fatal("no inputs accepted")
	}
}
