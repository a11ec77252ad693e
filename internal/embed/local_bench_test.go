package embed

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// localBenchTexts are memory-note-sized sentences (8–25 words).
var localBenchTexts = []string{
	"The staging database listens on port 5432 and only accepts connections from the VPN range.",
	"Remember that the user prefers short answers without bullet points unless asked.",
	"Deploys go out on Tuesdays and Thursdays; never ship on a Friday afternoon.",
	"The flaky integration test fails when the mock clock is not advanced past midnight.",
	"She is allergic to peanuts, so pick restaurants that can guarantee a nut-free kitchen.",
	"Rotate the API keys every ninety days and record the rotation in the ops log.",
	"The build cache lives in .cache and can be deleted safely when disk space runs low.",
	"Use the smaller batch size on the laptop, otherwise the embedding job runs out of memory.",
}

// localBenchTextsZH are Chinese notes of the same size, which the glossed
// embedder segments and glosses before the model reads them.
var localBenchTextsZH = []string{
	"预发环境验证通过后先灰度百分之十的流量，观察错误率和延迟十五分钟再全量发布。",
	"用户下午一般喝乌龙茶，不喝奶茶；开会时给他准备温水。",
	"订单表加了用户和创建时间的联合索引以后，列表查询从三秒降到二十毫秒。",
	"网关机器的访问日志没有配置轮转，磁盘写满后服务无法创建临时文件。",
}

// BenchmarkLocalLoad measures factory + background session build until ready.
func BenchmarkLocalLoad(b *testing.B) {
	for _, model := range []string{"use-lite", "test-bert"} {
		b.Run(model, func(b *testing.B) {
			dir := localTestModelDir(b, model)
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				e, err := newLocal(Config{ModelDir: dir})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.(*localEmbedder).WaitReady(context.Background()); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				e.Close()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/load")
		})
	}
}

// BenchmarkLocalSingle is the per-query latency: one short text per call,
// English and Chinese (glossed first when models/use-lite has the glossary).
func BenchmarkLocalSingle(b *testing.B) {
	e := localTestEmbedder(b, "use-lite", "")
	ctx := context.Background()
	for _, set := range []struct {
		name  string
		texts []string
	}{{"en", localBenchTexts}, {"zh", localBenchTextsZH}} {
		b.Run(set.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				k := i % len(set.texts)
				if _, err := e.Embed(ctx, set.texts[k:k+1]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/text")
		})
	}
}

// BenchmarkLocalBatch is index-sync throughput: many texts per Embed call.
func BenchmarkLocalBatch(b *testing.B) {
	e := localTestEmbedder(b, "use-lite", "")
	ctx := context.Background()
	for _, n := range []int{32, 256} {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = fmt.Sprintf("%s (note %d)", localBenchTexts[i%len(localBenchTexts)], i)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
