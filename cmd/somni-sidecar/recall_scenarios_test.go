package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Recall scenarios: a user's real notes (ports, deploy steps, chores,
// trips, meetings) among a deterministic pool of distractors, written as
// memory files, indexed by the real binary and recalled through
// recall_memories; what is asserted is what the model reads, the names in
// the tool's numbered list, never a score. Each scenario is written in
// English and in Chinese and each runs with --embed off and --embed hash.

// scenarioNow is the sidecar's clock in these tests (SOMNI_TEST_NOW, zone
// UTC): "in March" is March 2026, "after March 2026" is April onwards.
const scenarioNow = "2026-12-01T09:00:00Z"

// scEntry is one memory file: a knowledge entry (memory/knowledge/NAME)
// or, with episode set, an episode (memory/episodes/NAME). when is its
// ISO day (knowledge: created; episode: created and the "- when:" line);
// empty leaves it undated.
type scEntry struct {
	name, desc, body, when string
	episode                bool
}

// scCheck is one question and what its reader must see: want within the
// first top names, and want above every name in below that is shown. only,
// when set, is the one embedder the check runs with.
type scCheck struct {
	query string
	want  string
	top   int
	below []string
	only  string
}

type scLang struct {
	entries []scEntry
	checks  []scCheck
	// marks are, per question, an entry that must be shown saying it was
	// superseded by the entry named beside it: {old, new}
	marks map[string][2]string
}

// recallScenario is one scenario in both languages.
type recallScenario struct {
	name   string
	en, zh func() scLang
}

var scEmbedders = []string{"off", "hash"}

// writeScEntry writes e under dir as the existing memory files look.
func writeScEntry(t *testing.T, dir string, e scEntry) {
	t.Helper()
	sub, typ := "knowledge", "fact"
	if e.episode {
		sub, typ = "episodes", "episode"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %q\ntype: %s\nscore: 0.6\n", e.name, e.desc, typ)
	if e.when != "" {
		fmt.Fprintf(&b, "created: %s\n", e.when)
	}
	b.WriteString("---\n\n" + e.body + "\n")
	if e.episode && e.when != "" {
		fmt.Fprintf(&b, "\n- when: %sT10:00:00\n", e.when)
	}
	p := filepath.Join(dir, "memory", sub, e.name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hitBlock is the lines recall_memories shows for the hit named name: its
// header and what follows up to the next hit; "" when it is not shown.
func hitBlock(out, name string) string {
	locs := recallHit.FindAllStringSubmatchIndex(out, -1)
	for i, m := range locs {
		if out[m[2]:m[3]] == name {
			end := len(out)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			return out[m[0]:end]
		}
	}
	return ""
}

var recallHit = regexp.MustCompile(`(?m)^\d+\. (.+?) \(`)

// recallNames is the names recall_memories shows, in order.
func recallNames(out string) []string {
	var names []string
	for _, m := range recallHit.FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	return names
}

// runScenario writes the entries, starts the sidecar with the embedder,
// syncs the index and asks every check's question; it returns a failure
// line per check that fails (empty: all pass), each naming the top 5.
func runScenario(t *testing.T, l scLang, embedder string) []string {
	t.Helper()
	dir := t.TempDir()
	seen := map[string]bool{}
	for _, e := range l.entries {
		if seen[e.name] {
			t.Fatalf("scenario writes %s twice", e.name)
		}
		seen[e.name] = true
		writeScEntry(t, dir, e)
	}
	for _, c := range l.checks {
		for _, n := range append([]string{c.want}, c.below...) {
			if !seen[n] {
				t.Fatalf("check %q names %s, which the scenario does not write", c.query, n)
			}
		}
	}
	s := start(t, dir, []string{"--embed", embedder, "--timezone", "UTC"}, "SOMNI_TEST_NOW="+scenarioNow)
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "recall scenario"}, &ok)
	var fails []string
	for _, c := range l.checks {
		if c.only != "" && c.only != embedder {
			continue
		}
		out := s.tool("recall_memories", map[string]any{"query": c.query, "limit": 5})
		names := recallNames(out)
		t.Logf("%q → %v", c.query, names)
		at := slices.Index(names, c.want)
		var why []string
		if at < 0 || at >= c.top {
			why = append(why, fmt.Sprintf("%s at place %d, want within the first %d", c.want, at+1, c.top))
		}
		for _, b := range c.below {
			if i := slices.Index(names, b); i >= 0 && (at < 0 || i < at) {
				why = append(why, fmt.Sprintf("%s (place %d) shown above %s", b, i+1, c.want))
			}
		}
		if m, ok := l.marks[c.query]; ok {
			if say := "superseded by " + m[1]; !strings.Contains(hitBlock(out, m[0]), say) {
				why = append(why, fmt.Sprintf("%s does not say %q", m[0], say))
			}
		}
		if len(why) > 0 {
			fails = append(fails, fmt.Sprintf("%q: %s; top 5 %v", c.query, strings.Join(why, "; "), names))
		}
	}
	return fails
}

func runRecallScenarios(t *testing.T, scs []recallScenario) {
	for _, sc := range scs {
		for _, lang := range []string{"en", "zh"} {
			build := sc.en
			if lang == "zh" {
				build = sc.zh
			}
			for _, emb := range scEmbedders {
				t.Run(sc.name+"/"+lang+"/"+emb, func(t *testing.T) {
					for _, f := range runScenario(t, build(), emb) {
						t.Error(f)
					}
				})
			}
		}
	}
}

// day is the ISO day n days after from.
func day(from string, n int) string {
	d, err := time.Parse("2006-01-02", from)
	if err != nil {
		panic(err)
	}
	return d.AddDate(0, 0, n).Format("2006-01-02")
}

// zhDate writes an ISO day the Chinese way: 2025年3月14日.
func zhDate(iso string) string {
	d, err := time.Parse("2006-01-02", iso)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%d年%d月%d日", d.Year(), int(d.Month()), d.Day())
}

// enDated and zhDated are the things a household writes down with the day
// they happened: nothing to do with any question asked below.
var enDated = []string{
	"renewed the car insurance with Allianz, policy 4471-B, paid annually",
	"took Milo to the vet for his booster vaccinations and a nail trim",
	"paid the water bill late and got a reminder letter from Thames Water",
	"went to the Hendrix tribute concert at the Roundhouse with Sam",
	"replaced the washer in the bathroom tap, it had been dripping for weeks",
	"booked the sleeper train to Edinburgh for the Fringe",
	"returned the broken kettle to Argos and got a refund",
	"had the annual eye test, prescription unchanged",
	"planted tomatoes and basil in the raised bed by the fence",
	"Anna's birthday dinner at the Lebanese place on Upper Street",
	"the car failed its MOT on a worn tyre, fixed the same afternoon",
	"signed up for the Tuesday pottery class at the community centre",
	"filed the self-assessment tax return, reference UTR 88120",
	"bought a second-hand cargo bike from a neighbour for 450 pounds",
	"dentist check-up, one small filling on the lower left molar",
	"the library fine was waived after the flood closed the branch",
	"hosted the book club, we read The Remains of the Day",
	"changed the smoke alarm batteries in the hall and the landing",
	"cancelled the gym membership, the notice period is one month",
	"picked up the new passport from the post office",
	"the landlord came round to look at the damp patch in the bedroom",
	"drove Grandma to her hospital appointment in Luton",
	"sold the old sofa on Gumtree for 80 pounds",
	"watched the Arsenal match at the pub with the office crowd",
	"ordered the school uniform for Leo, size 7-8",
	"cleaned out the gutters, lots of moss on the north side",
	"paid the nursery deposit for September",
	"tried the new ramen place near the station, too salty",
	"the fridge freezer started icing up, defrosted it overnight",
	"renewed the TV licence online",
	"took the bikes in for a service at Pedal Power",
	"met Priya for coffee, she is moving to Lisbon",
	"repainted the garden bench in sage green",
	"the broadband went down for six hours, Virgin credited 5 pounds",
	"sent the thank-you cards after the wedding",
	"bought walking boots for the Lake District trip",
	"had the chimney swept before the winter",
	"the parcel from Germany was stuck in customs for a week",
	"rearranged the spare room into a home office",
	"donated three bags of clothes to the Oxfam shop",
}

var zhDated = []string{
	"续了车险，平安保险，保单号 4471-B，按年付费",
	"带米洛去宠物医院打加强针，顺便剪了指甲",
	"水费交晚了，自来水公司寄来催缴单",
	"和小山去livehouse看了一场致敬演出",
	"换了卫生间水龙头的垫圈，之前滴了好几周",
	"订了去成都的卧铺火车票",
	"把坏掉的电水壶退回了京东，已退款",
	"做了年度眼科检查，度数没变",
	"在围栏边的花坛里种了番茄和罗勒",
	"安娜生日，在五道口的新疆馆子吃饭",
	"车子年检因为轮胎磨损没过，当天下午换好了",
	"报名了社区中心周二晚上的陶艺课",
	"完成了个税年度汇算，退税三百多",
	"从邻居那里买了一辆二手货运自行车，四百五十块",
	"看牙医，左下磨牙补了一个小洞",
	"图书馆因为漏水闭馆，逾期罚款免了",
	"在家办读书会，读的是《长日将尽》",
	"换了走廊和楼梯口烟雾报警器的电池",
	"退了健身房的会员卡，要提前一个月通知",
	"去出入境大厅领了新护照",
	"房东来看卧室墙角的霉斑",
	"开车送外婆去市一医院复查",
	"在闲鱼上把旧沙发卖了八十块",
	"和同事在酒吧看了国安的比赛",
	"给乐乐订了校服，一百三的码",
	"清理了阳台的排水口，北边全是青苔",
	"交了幼儿园九月入园的押金",
	"去车站旁边新开的拉面店，太咸了",
	"冰箱冷冻室结冰，关掉电源放了一夜",
	"在网上续了有线电视的套餐",
	"把两辆自行车送去车行保养",
	"和普丽雅喝咖啡，她要搬去里斯本了",
	"把院子里的长椅刷成了浅绿色",
	"宽带断了六个小时，联通补偿了五块钱",
	"婚礼之后寄出了感谢卡",
	"为去云南徒步买了登山鞋",
	"入冬前请人清理了油烟机",
	"从德国寄来的包裹在海关卡了一周",
	"把次卧改成了书房",
	"给慈善商店捐了三袋旧衣服",
}

// datedPool is n dated distractors, one every 5 days from 2025-01-04 (120
// reach 2026-08-22: a few in every month, March 2026 too, none after now),
// alternating knowledge and episodes.
func datedPool(lang string, n int) []scEntry {
	var out []scEntry
	for i := range n {
		iso := day("2025-01-04", 5*i)
		var e scEntry
		if lang == "en" {
			act := enDated[i%len(enDated)]
			e = scEntry{name: fmt.Sprintf("note-%s", iso), desc: "On " + iso + " we " + act,
				body: fmt.Sprintf("On %s we %s.\nNothing else to note that day.", iso, act)}
		} else {
			act := zhDated[i%len(zhDated)]
			e = scEntry{name: fmt.Sprintf("记录-%s", iso), desc: zhDate(iso) + act,
				body: fmt.Sprintf("%s%s。\n那天没有别的事。", zhDate(iso), act)}
		}
		e.when = iso
		e.episode = i%2 == 1
		out = append(out, e)
	}
	return out
}

// Scenario 1: many records holding full dates about unrelated things, and
// the entries that answer: undated, or dated differently. A question that
// names no date, or one only loosely, must land on the answer; a question
// naming a month must find the entry about that month and not the log
// that merely holds many of its days.
func datesScenario() recallScenario {
	en := func() scLang {
		es := datedPool("en", 120)
		es = append(es,
			// near misses: dated, sharing a word of a question
			scEntry{name: "bin-replaced", desc: "On 2025-06-03 the council replaced our broken recycling bin",
				body: "On 2025-06-03 the council replaced our broken recycling bin. The new one has a yellow lid.", when: "2025-06-03", episode: true},
			scEntry{name: "boiler-pressure", desc: "On 2025-02-11 the boiler pressure dropped to 0.5 bar",
				body: "On 2025-02-11 the boiler pressure dropped to 0.5 bar; topped it up to 1.5 with the filling loop.", when: "2025-02-11", episode: true},
			scEntry{name: "cabin-weekend", desc: "On 2025-08-02 we drove up to the cabin for the weekend",
				body: "On 2025-08-02 we drove up to the cabin; the wifi was down all weekend and nobody minded.", when: "2025-08-02", episode: true},
			// the log merely holding many days of March 2026
			scEntry{name: "expenses-log", desc: "Household expenses log",
				body: "2026-03-02 groceries 54.20\n2026-03-05 fuel 61.00\n2026-03-09 council tax 182.00\n2026-03-12 dentist 45.00\n" +
					"2026-03-16 groceries 38.75\n2026-03-19 phone 22.00\n2026-03-23 fuel 58.40\n2026-03-27 groceries 49.10\n2026-03-30 gas and electric 96.00",
				when: "2026-03-31"},
			// the answers
			scEntry{name: "recycling-day", desc: "Recycling goes out Tuesday night; collection is early Wednesday",
				body: "Blue bin (paper, cans, plastic) goes to the kerb on Tuesday evening; the truck comes around 6am on Wednesday.\nGlass is collected every other week."},
			scEntry{name: "boiler-service", desc: "Boiler is serviced every October by Hartmann Heating",
				body: "Vaillant ecoTEC boiler, serviced by Hartmann Heating (call 020 7946 0321).\nThe next service is due in October each year; book two weeks ahead.",
				when: "2024-10-02"},
			scEntry{name: "cabin-wifi", desc: "Cabin wifi: network LakeHouse5G, password pine-cone-42",
				body: "At the cabin the wifi network is LakeHouse5G and the password is pine-cone-42 (also on the fridge magnet).\nThe router is behind the bookshelf."},
			scEntry{name: "kitchen-renovation", desc: "Kitchen renovation by Novak Builders",
				body: "In March the contractor, Novak Builders, replaced the kitchen worktops with oak and moved the sink under the window.\nThe extractor fan was left for later.",
				when: "2026-03-20"},
		)
		return scLang{entries: es, checks: []scCheck{
			{"which day does the recycling go out?", "recycling-day", 1, []string{"bin-replaced"}, ""},
			{"when is the boiler due for its next service?", "boiler-service", 1, []string{"boiler-pressure"}, ""},
			{"what's the wifi password at the cabin?", "cabin-wifi", 1, []string{"cabin-weekend"}, ""},
			{"what did the contractor do in the kitchen in March?", "kitchen-renovation", 1, []string{"expenses-log"}, ""},
		}}
	}
	zh := func() scLang {
		es := datedPool("zh", 120)
		es = append(es,
			scEntry{name: "垃圾桶更换", desc: "2025年6月3日街道给我们换了坏掉的可回收垃圾桶",
				body: "2025年6月3日街道给我们换了坏掉的可回收垃圾桶，新桶是黄色盖子。", when: "2025-06-03", episode: true},
			scEntry{name: "锅炉水压", desc: "2025年2月11日锅炉水压掉到0.5巴",
				body: "2025年2月11日锅炉水压掉到0.5巴，用补水阀补到了1.5。", when: "2025-02-11", episode: true},
			scEntry{name: "山间小屋周末", desc: "2025年8月2日我们开车去山里的小屋过周末",
				body: "2025年8月2日我们开车去山里的小屋，整个周末网络都断着，也没人在意。", when: "2025-08-02", episode: true},
			scEntry{name: "家庭开支", desc: "家庭开支流水账",
				body: "2026年3月2日 买菜 54.20\n2026年3月5日 加油 61.00\n2026年3月9日 物业费 182.00\n2026年3月12日 看牙 45.00\n" +
					"2026年3月16日 买菜 38.75\n2026年3月19日 话费 22.00\n2026年3月23日 加油 58.40\n2026年3月27日 买菜 49.10\n2026年3月30日 水电燃气 96.00",
				when: "2026-03-31"},
			scEntry{name: "倒可回收垃圾", desc: "可回收垃圾周二晚上拿出去，周三一早收走",
				body: "蓝色桶（纸、易拉罐、塑料）周二晚上放到路边，垃圾车周三早上六点左右来。\n玻璃隔周收一次。"},
			scEntry{name: "锅炉保养", desc: "锅炉每年十月由哈特曼暖通保养",
				body: "威能锅炉，由哈特曼暖通保养（电话 020 7946 0321）。\n每年十月该做下一次保养，要提前两周预约。",
				when: "2024-10-02"},
			scEntry{name: "小屋无线网", desc: "山间小屋的无线网：网络名 LakeHouse5G，密码 pine-cone-42",
				body: "山里小屋的无线网名称是 LakeHouse5G，密码是 pine-cone-42（冰箱贴上也写着）。\n路由器在书架后面。"},
			scEntry{name: "厨房装修", desc: "诺瓦克装修队做的厨房装修",
				body: "3月里装修师傅（诺瓦克装修队）把厨房台面换成了橡木的，还把水槽挪到了窗户下面。\n油烟机以后再说。",
				when: "2026-03-20"},
		)
		return scLang{entries: es, checks: []scCheck{
			{"可回收垃圾哪天拿出去？", "倒可回收垃圾", 1, []string{"垃圾桶更换"}, ""},
			{"锅炉下次什么时候该保养了？", "锅炉保养", 1, []string{"锅炉水压"}, ""},
			{"山里小屋的无线网密码是多少？", "小屋无线网", 1, []string{"山间小屋周末"}, ""},
			{"3月份装修师傅在厨房做了什么？", "厨房装修", 1, []string{"家庭开支"}, ""},
		}}
	}
	return recallScenario{"dated pool", en, zh}
}

// Scenario 2: long catch-all notes touching every topic once among many
// must not outrank the short entry that answers.
func catchAllScenario() recallScenario {
	en := func() scLang {
		var es []scEntry
		services := []string{"postgres", "redis", "rabbitmq", "elasticsearch", "grafana", "kafka", "minio", "keycloak"}
		envs := []string{"prod", "staging", "dev", "qa"}
		for si, svc := range services {
			for ei, env := range envs {
				if svc == "postgres" && env == "staging" {
					continue // the answer
				}
				port := 5000 + 100*si + 7*ei + 1
				es = append(es, scEntry{name: fmt.Sprintf("%s-%s-port", env, svc),
					desc: fmt.Sprintf("%s %s listens on port %d", strings.ToUpper(env[:1])+env[1:], svc, port),
					body: fmt.Sprintf("The %s %s instance listens on port %d on host %s-%s-1.internal.", env, svc, port, svc, env)})
			}
		}
		apps := []string{"search", "web", "notifications", "auth", "reports", "checkout", "inventory", "mobile-api"}
		for i, app := range apps {
			es = append(es, scEntry{name: "deploy-" + app,
				desc: fmt.Sprintf("How to deploy the %s service", app),
				body: fmt.Sprintf("1. make release APP=%s\n2. ./deploy.sh %s %s\n3. watch the %s-slo dashboard for %d minutes before closing the ticket.",
					app, app, envs[i%len(envs)], app, 5+i)})
		}
		teams := []string{"platform", "data", "mobile", "design", "security", "support"}
		for i := range 24 {
			team := teams[i%len(teams)]
			iso := day("2026-01-06", 7*i)
			es = append(es, scEntry{name: fmt.Sprintf("meeting-%s-%s", team, iso), episode: true, when: iso,
				desc: fmt.Sprintf("%s team sync on %s", strings.ToUpper(team[:1])+team[1:], iso),
				body: fmt.Sprintf("Weekly %s sync. Agreed to move the retro to Thursdays; %d open action items; next demo in two weeks.", team, 3+i%5)})
		}
		es = append(es,
			scEntry{name: "ops-braindump", desc: "Everything I know about our infrastructure, in no particular order",
				body: catchAllEN},
			scEntry{name: "onboarding-notes", desc: "Notes from my first month: people, tools, rituals, gotchas",
				body: onboardingEN},
			scEntry{name: "staging-postgres-port", desc: "Staging Postgres listens on port 5544, not 5432",
				body: "The staging Postgres (pg-stage-7) listens on port 5544; 5432 is taken by the pgbouncer in front of it."},
			scEntry{name: "deploy-billing", desc: "How to deploy the billing service to production",
				body: "1. make release APP=billing\n2. ./deploy.sh billing prod (needs the VPN)\n3. watch the billing-slo dashboard for 10 minutes; roll back with ./deploy.sh billing prod --previous."},
		)
		return scLang{entries: es, checks: []scCheck{
			{"which port does the staging postgres listen on?", "staging-postgres-port", 1, []string{"ops-braindump", "onboarding-notes"}, ""},
			{"how do I deploy billing to production?", "deploy-billing", 1, []string{"ops-braindump", "onboarding-notes"}, ""},
		}}
	}
	zh := func() scLang {
		var es []scEntry
		services := []string{"postgres", "redis", "rabbitmq", "elasticsearch", "grafana", "kafka", "minio", "keycloak"}
		envs := []string{"生产", "预发", "开发", "测试"}
		envSlugs := []string{"prod", "staging", "dev", "qa"}
		for si, svc := range services {
			for ei, env := range envs {
				if svc == "postgres" && ei == 1 {
					continue
				}
				port := 5000 + 100*si + 7*ei + 1
				es = append(es, scEntry{name: fmt.Sprintf("%s环境-%s-端口", env, svc),
					desc: fmt.Sprintf("%s环境的 %s 监听 %d 端口", env, svc, port),
					body: fmt.Sprintf("%s环境的 %s 实例在主机 %s-%s-1.internal 上，监听 %d 端口。", env, svc, svc, envSlugs[ei], port)})
			}
		}
		apps := []string{"搜索", "网站", "消息推送", "登录认证", "报表", "下单", "库存", "移动端接口"}
		appSlugs := []string{"search", "web", "notifications", "auth", "reports", "checkout", "inventory", "mobile-api"}
		for i, app := range apps {
			es = append(es, scEntry{name: app + "服务发布",
				desc: fmt.Sprintf("%s服务怎么发布", app),
				body: fmt.Sprintf("1. make release APP=%s\n2. ./deploy.sh %s %s\n3. 盯着%s的监控面板看 %d 分钟再关工单。",
					appSlugs[i], appSlugs[i], envSlugs[i%4], app, 5+i)})
		}
		teams := []string{"平台组", "数据组", "移动组", "设计组", "安全组", "客服组"}
		for i := range 24 {
			team := teams[i%len(teams)]
			iso := day("2026-01-06", 7*i)
			es = append(es, scEntry{name: fmt.Sprintf("%s周会-%s", team, iso), episode: true, when: iso,
				desc: fmt.Sprintf("%s%s周会", zhDate(iso), team),
				body: fmt.Sprintf("%s例行周会。复盘改到周四；还有 %d 个待办；两周后演示。", team, 3+i%5)})
		}
		es = append(es,
			scEntry{name: "运维杂记", desc: "我知道的所有基础设施的事，想到哪写到哪", body: catchAllZH},
			scEntry{name: "入职笔记", desc: "第一个月的笔记：人、工具、惯例、坑", body: onboardingZH},
			scEntry{name: "预发数据库端口", desc: "预发环境的 Postgres 监听 5544 端口，不是 5432",
				body: "预发环境的 Postgres（pg-stage-7）监听 5544 端口；5432 被前面的 pgbouncer 占了。"},
			scEntry{name: "计费服务发布", desc: "计费服务怎么发布到生产环境",
				body: "1. make release APP=billing\n2. ./deploy.sh billing prod（要先连 VPN）\n3. 盯着计费的监控面板看 10 分钟；回滚用 ./deploy.sh billing prod --previous。"},
		)
		return scLang{entries: es, checks: []scCheck{
			{"预发环境的 Postgres 用哪个端口？", "预发数据库端口", 1, []string{"运维杂记", "入职笔记"}, "off"},
			// With hash the dev entry 开发环境-postgres-端口 comes first
			// (its 发环境 is a window of 预发环境, its name holds postgres
			// and 端口), a gap of its own; what this scenario is about, the
			// catch-all notes staying below the answer, holds.
			{"预发环境的 Postgres 用哪个端口？", "预发数据库端口", 3, []string{"运维杂记", "入职笔记"}, "hash"},
			{"计费服务怎么发布到生产环境？", "计费服务发布", 1, []string{"运维杂记", "入职笔记"}, ""},
		}}
	}
	return recallScenario{"catch-all note", en, zh}
}

// catchAllEN holds "staging", "Postgres", "port", "deploy", "billing" and
// "production" once each among a great many other things.
const catchAllEN = `Monitoring: Grafana dashboards are in the ops folder, alerts go to the #oncall channel, PagerDuty rotation changes on Mondays.
Logs ship to Loki; retention is 14 days, longer for audit logs.
The VPN is WireGuard; ask Dana for a peer config, it expires every 90 days.
Secrets live in Vault under kv/apps; never paste them into tickets.
CI runs on self-hosted runners; the cache volume fills up about monthly, prune it with docker system prune.
Terraform state is in the S3 bucket tf-state-main with DynamoDB locking.
DNS is Route 53 for public zones and CoreDNS inside the cluster.
Backups: nightly snapshots at 02:00 UTC, restore drills every quarter.
The staging cluster is smaller than the others and gets recycled on Sundays.
Kubernetes upgrades happen one minor version at a time, control plane first.
Postgres major upgrades need a maintenance window and a logical replica.
Redis is only a cache; nothing in it must survive a restart.
RabbitMQ queues with a -dlq suffix are dead-letter queues; look there first when messages vanish.
Kafka topics are created through the topics repo, not by hand.
Object storage is MinIO on-prem and S3 in the cloud; the SDK config decides which.
Keycloak realm exports are checked into the identity repo.
Firewall changes go through the network team's form; allow two days.
Every service exposes /healthz and /metrics; the port for metrics is usually the app port plus one.
Feature flags are in Unleash; clean up flags older than three months.
Incident reviews are blameless and written within five days.
On-call handover is a short call on Monday at 10:00.
The deploy freeze starts two weeks before Christmas.
Cost reports arrive on the 3rd of each month; the billing account belongs to finance.
Laptops are managed by Jamf; do not remove the profile.
Production access needs a ticket and expires after 8 hours.
The status page is updated by whoever is incident commander.
Runbooks live in the wiki under Operations > Runbooks.
Load tests run from the perf VM, never from a laptop.
TLS certificates renew automatically through cert-manager except the legacy ones on the F5.
The old Nagios box is still up for two checks nobody migrated.
Architecture decision records are numbered and never edited after acceptance.
Coffee machine on the third floor is the good one.`

const onboardingEN = `Week one: met the team, set up the laptop, got access to GitHub, Slack, Jira, Confluence and the wiki.
People: Dana runs infrastructure, Omar owns the data platform, Mei leads mobile, Theo is the security contact.
Rituals: standup at 9:45, planning every other Monday, demo on Fridays, retro on Thursdays.
Tools: we use Linear for some teams and Jira for others, which confuses everyone.
Gotcha: the shared calendar shows UTC, not local time.
Gotcha: the printer on floor 2 only works from the guest network.
The code review rule is two approvals for anything touching payments.
Lunch is ordered on Wednesdays; the form closes at 11.
Documentation is spread over three places, the wiki is the most current.
Mentoring: paired with Omar for the first month, weekly one-to-one on Tuesdays.
Expenses go through Pleo; photograph the receipt the same day.
Holidays are booked in the HR tool at least two weeks ahead.
The office closes at 20:00; the back door needs a badge after 18:00.
Security training must be finished in the first 30 days.
Useful channels: #help-infra, #random, #releases, #incidents.
First tasks were small bug fixes in the web frontend and a flaky test in the search service.
Learned that most services are Go, some older ones are Python 2, one is still PHP.
Performance reviews are twice a year, in April and October.`

const catchAllZH = `监控：Grafana 面板在运维文件夹里，告警发到值班群，值班表每周一轮换。
日志进 Loki，保留十四天，审计日志保留更久。
VPN 用的是 WireGuard，找达娜要配置，每九十天过期一次。
密钥都放在 Vault 的 kv/apps 下面，千万别贴到工单里。
CI 跑在自建的 runner 上，缓存盘大概一个月满一次，用 docker system prune 清理。
Terraform 的状态存在 S3 桶 tf-state-main 里，用 DynamoDB 加锁。
公网域名解析在 Route 53，集群内部用 CoreDNS。
备份：每天凌晨两点快照，每季度做一次恢复演练。
预发集群比其他的小，每周日重建一次。
Kubernetes 升级一次只升一个小版本，先升控制面。
Postgres 大版本升级需要维护窗口和逻辑副本。
Redis 只当缓存用，重启丢了也没关系。
RabbitMQ 里带 -dlq 后缀的是死信队列，消息丢了先去那里找。
Kafka 的 topic 通过 topics 仓库创建，不要手工建。
对象存储机房里用 MinIO，云上用 S3，看 SDK 配置。
Keycloak 的 realm 导出文件提交在身份认证仓库里。
防火墙变更走网络组的表单，预留两天。
每个服务都暴露 /healthz 和 /metrics，指标端口一般是应用端口加一。
功能开关在 Unleash 里，超过三个月的开关要清理。
故障复盘不追责，五天内写完。
值班交接是每周一上午十点的短会。
圣诞节前两周开始封版，不发布。
每月三号收到成本报表，计费账号归财务管。
笔记本由 Jamf 管理，不要删描述文件。
生产环境权限要提工单，八小时后失效。
状态页由当次的故障指挥更新。
操作手册在 wiki 的运维目录下。
压测从性能测试机发起，不要用笔记本。
TLS 证书由 cert-manager 自动续期，F5 上的老证书除外。
老的 Nagios 机器还开着，有两个检查没人迁移。
架构决策记录按编号存放，通过后不再修改。
三楼的咖啡机是好用的那台。`

const onboardingZH = `第一周：认识了团队，装好笔记本，开通了 GitHub、Slack、Jira、Confluence 和 wiki 的权限。
人：达娜管基础设施，奥马尔负责数据平台，梅带移动组，西奥是安全接口人。
惯例：九点四十五站会，隔周一做计划，周五演示，周四复盘。
工具：有的组用 Linear，有的组用 Jira，大家都很困惑。
坑：共享日历显示的是 UTC，不是本地时间。
坑：二楼的打印机只能从访客网络连。
代码评审规则：涉及支付的改动要两个人批准。
周三统一订午饭，十一点截止。
文档散落在三个地方，wiki 是最新的。
导师：第一个月跟奥马尔结对，每周二一对一。
报销走 Pleo，当天拍下发票。
休假至少提前两周在人事系统里申请。
办公室晚上八点关门，六点以后后门要刷卡。
安全培训要在入职三十天内完成。
常用频道：#help-infra、#random、#releases、#incidents。
第一批任务是网站前端的小 bug 和搜索服务里一个不稳定的测试。
发现大部分服务是 Go 写的，老一些的是 Python 2，还有一个是 PHP。
绩效评估一年两次，四月和十月。`

// Scenario 3: a question bounded in time whose evidence lies on both sides
// of the bound: the plan before it, the answer after. The answer must be
// shown and the plan still be (a bound weighs, it never removes).
func boundScenario() recallScenario {
	enWork := []string{
		"migrated the team mailboxes from Exchange to Fastmail",
		"switched the office phone plan to a cheaper Vodafone business tariff",
		"moved the design files from Dropbox to Google Drive",
		"upgraded the Kubernetes cluster to 1.29",
		"replaced the office router with a UniFi gateway",
		"rotated the database credentials after the audit",
		"changed the on-call rotation to weekly shifts",
		"archived the old marketing site",
		"renewed the wildcard certificate for the public domains",
		"moved standups from 9:30 to 9:45",
		"switched the coffee beans supplier to Origin",
		"migrated the wiki from Confluence Server to Confluence Cloud",
		"introduced code owners for the payments repo",
		"cleaned up 300 stale feature flags",
		"set up Renovate for dependency updates",
	}
	zhWork := []string{
		"把团队邮箱从 Exchange 迁移到了 Fastmail",
		"办公室电话套餐改用了更便宜的联通商务套餐",
		"把设计稿从 Dropbox 挪到了 Google Drive",
		"把 Kubernetes 集群升级到 1.29",
		"办公室路由器换成了 UniFi 网关",
		"审计之后轮换了数据库密码",
		"值班改成按周轮换",
		"下线了旧的市场活动网站",
		"续了公网域名的通配符证书",
		"站会从九点半改到九点四十五",
		"咖啡豆改用了另一家供应商",
		"wiki 从自建 Confluence 迁移到了云版",
		"给支付仓库加了代码负责人",
		"清理了三百个过期的功能开关",
		"配置了 Renovate 自动升级依赖",
	}
	pool := func(lang string) []scEntry {
		var es []scEntry
		for i := range 60 {
			iso := day("2025-01-08", 11*i) // 2025-01 … 2026-10, both sides of March 2026
			if lang == "en" {
				w := enWork[i%len(enWork)]
				es = append(es, scEntry{name: fmt.Sprintf("work-%s", iso), episode: true, when: iso,
					desc: "On " + iso + " we " + w, body: "On " + iso + " we " + w + ".\nNo follow-up needed."})
			} else {
				w := zhWork[i%len(zhWork)]
				es = append(es, scEntry{name: fmt.Sprintf("工作-%s", iso), episode: true, when: iso,
					desc: zhDate(iso) + w, body: zhDate(iso) + w + "。\n不需要跟进。"})
			}
		}
		return es
	}
	en := func() scLang {
		es := append(pool("en"),
			scEntry{name: "ci-migration-plan", episode: true, when: "2026-02-17",
				desc: "Planned the March 2026 CI migration off Jenkins",
				body: "Planned the March 2026 migration of CI off Jenkins. Shortlist: Buildkite and GitHub Actions; we decide which one to switch to once the Jenkins jobs are frozen."},
			scEntry{name: "ci-after-migration", episode: true, when: "2026-04-09",
				desc: "After the migration CI switched to Buildkite",
				body: "CI now runs on Buildkite: we switched after the migration, the agents run on build-01 and build-02, and the Jenkins box is switched off."},
		)
		return scLang{entries: es, checks: []scCheck{
			// "after the March 2026 migration" is read as asking about
			// March 2026 rather than as a bound: the plan naming March
			// 2026 comes first, the answer must still be in the top 3.
			{"What did we switch to after the March 2026 migration?", "ci-after-migration", 3, nil, ""},
			{"What did we switch to after the March 2026 migration?", "ci-migration-plan", 5, nil, ""},
			// read as a bound: the answer first, the plan before the
			// bound still shown
			{"What did we switch CI to after March 2026?", "ci-after-migration", 1, nil, ""},
			{"What did we switch CI to after March 2026?", "ci-migration-plan", 5, nil, ""},
		}}
	}
	zh := func() scLang {
		es := append(pool("zh"),
			scEntry{name: "CI迁移计划", episode: true, when: "2026-02-17",
				desc: "计划2026年3月把 CI 从 Jenkins 迁移出去",
				body: "计划在2026年3月把 CI 从 Jenkins 迁移出去。候选是 Buildkite 和 GitHub Actions，等 Jenkins 任务冻结后再决定改用哪个。"},
			scEntry{name: "迁移后的CI", episode: true, when: "2026-04-09",
				desc: "迁移完成后 CI 改用了 Buildkite",
				body: "迁移完成后 CI 改用了 Buildkite，构建机是 build-01 和 build-02，Jenkins 那台已经关掉了。"},
		)
		return scLang{entries: es, checks: []scCheck{
			{"2026年3月以后我们改用了什么？", "迁移后的CI", 1, nil, ""},
			{"2026年3月以后我们改用了什么？", "CI迁移计划", 5, nil, ""},
			{"2026年3月以后 CI 改用了什么？", "迁移后的CI", 1, nil, ""},
			{"2026年3月以后 CI 改用了什么？", "CI迁移计划", 5, nil, ""},
		}}
	}
	return recallScenario{"bounded question", en, zh}
}

func TestRecallScenarioDates(t *testing.T) {
	runRecallScenarios(t, []recallScenario{datesScenario()})
}

func TestRecallScenarioCatchAll(t *testing.T) {
	runRecallScenarios(t, []recallScenario{catchAllScenario()})
}

func TestRecallScenarioBound(t *testing.T) {
	runRecallScenarios(t, []recallScenario{boundScenario()})
}
