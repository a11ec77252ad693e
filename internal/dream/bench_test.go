package dream_test

import (
	"context"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/memory"
)

// instantModel answers every turn at once with the same tool call, then ends
// the dream after steps turns; it costs nothing, so a benchmark measures the
// dreamer itself (loop, argument decoding, tool, conversation bookkeeping).
type instantModel struct {
	steps int
	call  dream.ToolCall
}

func (m *instantModel) Name() string { return "host" }

func (m *instantModel) Chat(_ context.Context, msgs []dream.Message, _ []dream.Tool) (dream.Message, dream.Usage, error) {
	u := dream.Usage{PromptTokens: 100, CompletionTokens: 10}
	// system + user, then an assistant and a tool message per step.
	if (len(msgs)-2)/2 >= m.steps {
		return dream.Message{Role: "assistant", Content: "done"}, u, nil
	}
	return dream.Message{Role: "assistant", ToolCalls: []dream.ToolCall{m.call}}, u, nil
}

// BenchmarkDreamStep reports the dreamer's own overhead per ReAct step with a
// model that answers instantly: ms/step over whole dreams of 25 tool steps
// plus the final answer, setup (pending logs, prompts) included.
func BenchmarkDreamStep(b *testing.B) {
	const steps = 25
	cases := []struct {
		name, tool, args string
	}{
		// Refused by validation: loop + decoding + bookkeeping, no disk.
		{"refused", "list_items", `{"scope":"bogus"}`},
		// A real read of a knowledge entry from disk.
		{"read_item", "read_item", `{"name":"somni-metrics-port"}`},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			st := newStore(b, "2026-03-02_002.md")
			if _, err := st.CreateKnowledge(context.Background(), memory.KnowledgeInput{Name: "somni-metrics-port", Type: "fact", Description: "somni metrics endpoint port", Body: "9464", Verified: true}); err != nil {
				b.Fatal(err)
			}
			m := &instantModel{steps: steps, call: dream.ToolCall{ID: "c", Type: "function", Function: dream.FunctionCall{Name: bc.tool, Arguments: bc.args}}}
			d := newDreamer(st, m)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if res := d.Run(ctx, "bench"); res.Status != dream.StatusDeepSleep {
					b.Fatalf("res = %+v", res)
				}
			}
			perStep := float64(b.Elapsed().Nanoseconds()) / float64(b.N*(steps+1)) / 1e6
			b.ReportMetric(perStep, "ms/step")
		})
	}
}
