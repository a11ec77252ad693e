package rank

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// synthetic vocabularies: a Zipf-like draw over them gives realistic
// posting-list lengths (a few very common words, a long tail).
var (
	synthEN = strings.Fields(`cache redis postgres replica failover deploy rollback kafka consumer lag
	nginx timeout proxy upstream kubernetes pod probe restart memory heap certificate renewal dns ttl
	backup restore drill vacuum bloat index query slow latency alert pager oncall escalation budget
	invoice customer report dashboard grafana metric label cardinality secret vault token rotation
	python uv pytest golang error wrap retry idempotent queue migration schema partition shard node
	cluster disk volume scratch cron timezone schedule export billing payment ledger audit tenant
	feature flag rollout canary percent build pipeline artifact docker image registry mirror bastion
	ssh key sso laptop monitor keyboard meeting agenda review comment style coffee tea preference`)
	synthZH = strings.Fields(`数据库 缓存 发布 回滚 灰度 监控 告警 日志 磁盘 索引 慢查询 报销 发票 周报 项目
	风险 计划 评审 架构 拆分 服务 用户 权限 审批 网络 域名 解析 限流 配额 集群 分片 节点 扩容 文档 翻译
	生日 蛋糕 咖啡 乌龙茶 会议 出差 酒店 航班 客户 演示 环境 镜像 入职 实习生 电脑 维修`)
)

// SyntheticDocs generates n reproducible bilingual knowledge entries for
// benchmarks (index, assoc, the sidecar's recall bench): names are unique
// (`note-<i>`), roughly one in five is Chinese, bodies run 40–120 words,
// and every tenth entry carries an exact symbol like `db-node-<i>`.
func SyntheticDocs(n int, seed uint64) []Doc {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	zipf := func(words []string) string { // rank-1 words most likely
		i := int(float64(len(words)) * r.Float64() * r.Float64() * r.Float64())
		return words[min(i, len(words)-1)]
	}
	docs := make([]Doc, n)
	for i := range docs {
		zh := i%5 == 0
		words := synthEN
		sep := " "
		if zh {
			words, sep = synthZH, ""
		}
		pick := func(k int) string {
			parts := make([]string, k)
			for j := range parts {
				parts[j] = zipf(words)
			}
			return strings.Join(parts, sep)
		}
		body := pick(40 + r.IntN(80))
		if i%10 == 0 {
			body += fmt.Sprintf(" host db-node-%d port %d", i, 10000+i)
		}
		docs[i] = Doc{
			Path:        fmt.Sprintf("memory/knowledge/note-%d/SKILL.md", i),
			Kind:        KindKnowledge,
			Name:        fmt.Sprintf("note-%d", i),
			Description: pick(6 + r.IntN(6)),
			Body:        body,
			Type:        "fact",
			Score:       r.Float64(),
		}
		if i > 0 && i%7 == 0 {
			docs[i].Related = []string{fmt.Sprintf("note-%d", r.IntN(i))}
		}
	}
	return docs
}
