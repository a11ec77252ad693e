package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolCallMCPvsJSONRPC measures recall_memories round trips over
// MCP (the SDK's client, `somni-sidecar mcp` over pipes) against the DSH
// JSON-RPC path (tools.call) on the same 1000-file store, in one run:
// calls alternate, so both see the same machine. mcp-over-rpc-us is the
// p50 difference, what the MCP layer costs per call.
func BenchmarkToolCallMCPvsJSONRPC(b *testing.B) {
	const n = 1000
	dir := recallCorpus(b, n)
	side, _ := spawnLine(b, binPath, sidecarArgs(dir)...)
	defer side.stop()
	rpcCall := func(id int, query string) string {
		return side.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools.call","params":{"name":"recall_memories","args":{"query":%q,"limit":5}}}`, id, query))
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "somni-bench", Version: "1"}, nil)
	ctx := context.Background()
	cmd := exec.Command(binPath, append([]string{"mcp"}, sidecarArgs(dir)...)...)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	mcpCall := func(query string) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memories", Arguments: map[string]any{"query": query, "limit": 5}})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError || len(res.Content) != 1 {
			b.Fatalf("recall over MCP failed: %+v", res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	// Both processes index the corpus at startup; wait for both.
	sentinel := fmt.Sprintf("entry-%05d", n-1)
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(rpcCall(1, "zzsentinel"), sentinel) || !strings.Contains(mcpCall("zzsentinel"), sentinel) {
		if time.Now().After(deadline) {
			b.Fatal("index never caught up")
		}
		time.Sleep(100 * time.Millisecond)
	}
	queries := benchQueries(64)
	rpcDs := make([]time.Duration, 0, b.N)
	mcpDs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		t0 := time.Now()
		reply := rpcCall(i+2, q)
		rpcDs = append(rpcDs, time.Since(t0))
		if !strings.Contains(reply, `"result"`) {
			b.Fatalf("recall failed: %s", reply)
		}
		t0 = time.Now()
		text := mcpCall(q)
		mcpDs = append(mcpDs, time.Since(t0))
		if i < len(queries) {
			var w struct {
				Result struct{ Result string }
			}
			if err := json.Unmarshal([]byte(reply), &w); err != nil || w.Result.Result != text {
				b.Fatalf("MCP and JSON-RPC disagree on %q (%v):\n%s\n%s", q, err, text, reply)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(percentile(rpcDs, 0.5)), "rpc-p50-ms")
	b.ReportMetric(ms(percentile(rpcDs, 0.99)), "rpc-p99-ms")
	b.ReportMetric(ms(percentile(mcpDs, 0.5)), "mcp-p50-ms")
	b.ReportMetric(ms(percentile(mcpDs, 0.99)), "mcp-p99-ms")
	b.ReportMetric(us(percentile(mcpDs, 0.5)-percentile(rpcDs, 0.5)), "mcp-over-rpc-us")
}
