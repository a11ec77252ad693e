package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// supersedeScenario: memory that knows what changed. A later note that
// changes an earlier one ranks first for a question about now, the earlier
// one is shown saying what superseded it, and a question about how things
// were before gets the earlier one first — also when it shares none of the
// question's rarer words (the second hop through the newer note). The two
// notes are dated knowledge entries among realistic neighbours that share
// their common words.
func supersedeScenario() recallScenario {
	en := func() scLang {
		var es []scEntry
		for i, svc := range []string{"postgres", "redis", "rabbitmq", "elasticsearch", "clickhouse", "minio", "vault", "grafana"} {
			es = append(es, scEntry{name: "staging-" + svc, desc: "Staging " + svc + " connection details",
				body: fmt.Sprintf("Staging %s runs on stg-%s-1, port %d; credentials are in the vault.", svc, svc, 5400+i*11), when: day("2026-01-05", i*9)})
		}
		for i := range 24 {
			es = append(es, scEntry{name: fmt.Sprintf("standup-notes-%02d", i+1), desc: "Standup notes",
				body: fmt.Sprintf("Standup notes, week %d: reviewed the sprint board, %d tickets closed, demo on Friday.", i+1, 3+i%7),
				when: day("2026-02-02", i*7)})
		}
		es = append(es,
			scEntry{name: "staging-kafka", desc: "Staging Kafka connection", body: "Our staging Kafka listens on port 9092 (brokers kafka-stg-1 to kafka-stg-3).", when: "2026-03-02"},
			scEntry{name: "kafka-upgrade-notes", desc: "What changed in the Kafka upgrade", body: "After the September upgrade, staging Kafka moved to port 9094, TLS only.", when: "2026-09-14"},
			scEntry{name: "standup-room", desc: "Where the team meets", body: "Standup is at 9:30 in the Aurora room on the third floor.", when: "2026-02-01"},
			scEntry{name: "reorg-2026", desc: "The October reorganisation", body: "After the reorg, standup moved to the Nebula room at 10:00.", when: "2026-10-05"},
		)
		return scLang{entries: es, checks: []scCheck{
			{"Which port is staging Kafka on?", "kafka-upgrade-notes", 1, []string{"staging-kafka"}, ""},
			{"What port did staging Kafka use before the upgrade?", "staging-kafka", 1, []string{"kafka-upgrade-notes"}, ""},
			{"Which room is standup in now?", "reorg-2026", 1, []string{"standup-room"}, ""},
			{"Which room was standup in before the reorg?", "standup-room", 1, []string{"reorg-2026"}, ""},
		}, marks: map[string][2]string{
			"Which port is staging Kafka on?":                     {"staging-kafka", "kafka-upgrade-notes"},
			"What port did staging Kafka use before the upgrade?": {"staging-kafka", "kafka-upgrade-notes"},
			"Which room was standup in before the reorg?":         {"standup-room", "reorg-2026"},
		}}
	}
	zh := func() scLang {
		var es []scEntry
		for i, svc := range []string{"postgres", "redis", "rabbitmq", "elasticsearch", "clickhouse", "minio", "vault", "grafana"} {
			es = append(es, scEntry{name: "预发-" + svc, desc: "预发环境 " + svc + " 的连接信息",
				body: fmt.Sprintf("预发环境的 %s 在 stg-%s-1 上，端口 %d，账号在 vault 里。", svc, svc, 5400+i*11), when: day("2026-01-05", i*9)})
		}
		for i := range 24 {
			es = append(es, scEntry{name: fmt.Sprintf("周会纪要-%02d", i+1), desc: "周会纪要",
				body: fmt.Sprintf("第 %d 周周会纪要：过了一遍迭代看板，关了 %d 个工单，周五演示。", i+1, 3+i%7), when: day("2026-02-02", i*7)})
		}
		es = append(es,
			scEntry{name: "预发-kafka", desc: "预发环境 Kafka 连接", body: "我们预发环境的 Kafka 端口是 9092（kafka-stg-1 到 kafka-stg-3）。", when: "2026-03-02"},
			scEntry{name: "kafka-升级记录", desc: "Kafka 升级后改了什么", body: "九月升级以后，预发环境 Kafka 的端口改成 9094 了，只走 TLS。", when: "2026-09-14"},
			scEntry{name: "周会地点", desc: "团队在哪开会", body: "周会九点半在三楼的极光会议室开。", when: "2026-02-01"},
			scEntry{name: "十月调整", desc: "十月的组织调整", body: "组织调整以后，周会改到星云会议室了，十点开始。", when: "2026-10-05"},
		)
		return scLang{entries: es, checks: []scCheck{
			{"预发环境 Kafka 现在用哪个端口？", "kafka-升级记录", 1, []string{"预发-kafka"}, ""},
			{"升级之前预发环境 Kafka 用的是哪个端口？", "预发-kafka", 1, []string{"kafka-升级记录"}, ""},
			{"周会现在在哪个会议室？", "十月调整", 1, []string{"周会地点"}, ""},
			{"周会原来在哪个会议室开？", "周会地点", 1, []string{"十月调整"}, ""},
		}, marks: map[string][2]string{
			"预发环境 Kafka 现在用哪个端口？":     {"预发-kafka", "kafka-升级记录"},
			"升级之前预发环境 Kafka 用的是哪个端口？": {"预发-kafka", "kafka-升级记录"},
			"周会原来在哪个会议室开？":            {"周会地点", "十月调整"},
		}}
	}
	return recallScenario{"what changed", en, zh}
}

// TestRecallMarksDreamedSupersession: the links a dream writes in the
// front-matter (supersedes:, superseded_by:) reach recall through the
// store and the index cache: the replacement first, the old entry marked.
func TestRecallMarksDreamedSupersession(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct{ name, body string }{
		{"deploy-host", "---\nname: deploy-host\ndescription: \"Where deploys go\"\ntype: fact\nsuperseded_by: deploy-host-2026\n---\n\nDeploys go to web-1.internal.\n"},
		{"deploy-host-2026", "---\nname: deploy-host-2026\ndescription: \"Where deploys go since the move\"\ntype: fact\nsupersedes: [deploy-host]\n---\n\nDeploys go to web-7.internal since the data-centre move.\n"},
	} {
		writeRaw(t, filepath.Join(dir, "memory", "knowledge", f.name, "SKILL.md"), f.body)
	}
	s := start(t, dir, []string{"--embed", "off"})
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	out := s.tool("recall_memories", map[string]any{"query": "where do deploys go", "limit": 5})
	if names := recallNames(out); len(names) != 2 || names[0] != "deploy-host-2026" {
		t.Fatalf("names %v, want deploy-host-2026 first:\n%s", names, out)
	}
	if !strings.Contains(hitBlock(out, "deploy-host"), "superseded by deploy-host-2026") {
		t.Fatalf("the old entry is not marked:\n%s", out)
	}
}

func writeRaw(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRecallScenarioSupersede(t *testing.T) {
	runRecallScenarios(t, []recallScenario{supersedeScenario()})
}
