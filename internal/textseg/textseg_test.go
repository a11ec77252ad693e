package textseg

import (
	"reflect"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lowercase and punctuation", "Redis, maxmemory-policy: allkeys_LRU!", []string{"redi", "maxmemori", "polici", "allkey", "lru"}},
		{"Snowball stemming", "rotated rotate leaked caches cached policies stopped adoption adopting 10ms v2s", []string{"rotat", "rotat", "leak", "cach", "cach", "polici", "stop", "adopt", "adopt", "10ms", "v2s"}},
		{"stopwords and 1-char dropped", "how do I set a TTL", []string{"set", "ttl"}},
		{"CJK windows 2-4", "数据库连接", []string{"数据", "据库", "库连", "连接", "数据库", "据库连", "库连接", "数据库连", "据库连接"}},
		{"CJK punctuation splits runs", "端口，配置。好", []string{"端口", "配置", "好"}},
		{"no token straddles scripts", "用Redis缓存", []string{"用", "redi", "缓存"}},
		{"CJK Extension A", "㐀㐁", []string{"㐀㐁"}},
		{"kana", "データベース", []string{"デー", "ータ", "タベ", "ベー", "ース", "データ", "ータベ", "タベー", "ベース", "データベ", "ータベー", "タベース"}},
		{"hangul", "서버 설정", []string{"서버", "설정"}},
		// a kanji with a Traditional Chinese form folds like Chinese (FoldHan), the same on every side
		{"hiragana vs han boundary", "東京へ行く", []string{"东京", "へ", "行", "く"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Tokenize(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		// four letters and more: Snowball's English stem
		{"eats", "eat"}, {"logs", "log"}, {"runs", "run"}, {"keys", "key"}, {"uses", "use"}, {"used", "use"},
		{"this", "this"}, {"plus", "plus"}, {"boss", "boss"}, {"news", "news"},
		{"reminders", "remind"}, {"policies", "polici"}, {"policy", "polici"}, {"stopped", "stop"},
		{"rotated", "rotat"}, {"status", "status"}, {"classes", "class"}, {"agencies", "agenc"}, {"agency", "agenc"},
		// three letters and shorter, digits: never stemmed
		{"ids", "ids"}, {"bus", "bus"}, {"gas", "gas"}, {"yes", "yes"}, {"v2s", "v2s"}, {"k8s", "k8s"}, {"1ms", "1ms"},
	}
	for _, tc := range tests {
		if got := stem(tc.in); got != tc.want {
			t.Errorf("stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// the point: a query verb meets the entry's -s form
	if q, d := Tokenize("what does Tom eat"), Tokenize("Tom eats fish on Fridays"); q[len(q)-1] != d[1] {
		t.Errorf("eat vs eats: query terms %q, entry terms %q", q, d)
	}
}

func TestSymbols(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"why is db-billing-02 slow?", []string{"db-billing-02"}},
		{"set allkeys-lru on redis", []string{"allkeys-lru"}},
		{"where is UNLEASH_TOKEN set", []string{"UNLEASH_TOKEN"}},
		{"port 6379 on 10.0.0.5.", []string{"6379", "10.0.0.5"}},
		{"edit /etc/nginx/nginx.conf now", []string{"/etc/nginx/nginx.conf", "nginx/nginx.conf", "etc/nginx/nginx.conf", "nginx.conf"}},
		// compound fields of tool arguments yield their parts
		{"psql -h pg-stage-7 -p 6543", []string{"pg-stage-7", "6543"}},
		{"psql --host=pg-stage-7 --port=6543", []string{"--host=pg-stage-7", "--host", "pg-stage-7", "--port=6543", "--port", "6543"}},
		{`psql "postgres://app@pg-stage-7:6543/app"`, []string{"postgres://app@pg-stage-7:6543/app", "pg-stage-7", "6543"}},
		{"/home/ann/src/docs/staging-postgres-notes.md", []string{"/home/ann/src/docs/staging-postgres-notes.md",
			"docs/staging-postgres-notes.md", "src/docs/staging-postgres-notes.md", "staging-postgres-notes.md", "staging-postgres-notes"}},
		{"conf/pg-stage-7.conf", []string{"conf/pg-stage-7.conf", "pg-stage-7.conf", "pg-stage-7"}},
		{"read src/index.ts and package.json", []string{"src/index.ts", "index.ts", "package.json"}},
		{"go test ./...", nil},
		{"upgrade to v1.2.3", []string{"v1.2.3"}},
		{"call getUserByID", []string{"getUserByID"}},
		{"plain words only REDIS cache", nil},
		{"single 5 and x", nil},
		{"端口6379怎么配", []string{"6379"}},
		{"（db-billing-02）出问题", []string{"db-billing-02"}},
	}
	for _, tc := range tests {
		if got := Symbols(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Symbols(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSpecific(t *testing.T) {
	tests := []struct {
		sym  string
		want bool
	}{
		{"pg-stage-7", true},
		{"redis-stage-3", true},
		{"6543", true},
		{"10.20.0.15", true},
		{"UNLEASH_TOKEN", true},
		{"TestCheckoutFlow", true},
		{"testclock.New", true},
		{"staging-postgres-notes.md", true},
		{"flow_test.go", true},
		{"/vault/secrets", true},
		{"bastion.prod.internal", true},
		{"30", false},           // short numbers: counts, minutes, 443
		{"443", false},          //
		{"package.json", false}, // plain file names
		{"go.sum", false},       //
		{"README.md", false},    //
		{"--oneline", false},    // flags are the tool's vocabulary
		{"--max-old-space-size", false},
		{"v2", false},    // under four characters
		{"/tmp", false},  // one-component path
		{"./...", false}, //
	}
	for _, tc := range tests {
		if got := Specific(tc.sym); got != tc.want {
			t.Errorf("Specific(%q) = %v, want %v", tc.sym, got, tc.want)
		}
	}
}

func TestContainsSymbol(t *testing.T) {
	tests := []struct {
		hay, sym string
		want     bool
	}{
		{"host db-billing-02 is primary", "db-billing-02", true},
		{"host db-billing-021 is primary", "db-billing-02", false},
		{"x-db-billing-02", "db-billing-02", false},
		{"端口6379。", "6379", true},
		{"16379", "6379", false},
		{"policy allkeys-lru.", "allkeys-lru", true},
	}
	for _, tc := range tests {
		if got := ContainsSymbol(tc.hay, tc.sym); got != tc.want {
			t.Errorf("ContainsSymbol(%q, %q) = %v, want %v", tc.hay, tc.sym, got, tc.want)
		}
	}
}

func TestFillersLeaveKeywordTerms(t *testing.T) {
	a, b := Tokenize("which port does staging postgres use now?"), Tokenize("what port is staging postgres on?")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("paraphrase terms %q, want %q", a, b)
	}
	if IsStopword("now") || IsStopword("use") {
		t.Error("fillers must stay out of IsStopword: the hash embedder reads it")
	}
}

func TestMostlyCJK(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Bart在圣诞节晚会上跳舞，感觉非常开心。", true},
		{"小雨: 今天好累", true},
		{"staging postgres runs on pg-stage-7", false},
		{"用 pg-stage-7 连接测试环境的数据库", true},          // 11 Han = 5.5 words against 2
		{"deploy 前先跑 go test ./... 和 lint", false}, // 4 Han = 2 words against 5
		{"session 3, 2023-11-04 19:30", false},
		{"", false},
		{"… ！？", false},
	}
	for _, tc := range tests {
		if got := MostlyCJK(tc.text); got != tc.want {
			t.Errorf("MostlyCJK(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestIsLower: IsLower answers what comparing with strings.ToLower would.
func TestIsLower(t *testing.T) {
	for _, s := range []string{"", "plain words", "Capital", "数据库 备份", "ÉCOLE", "école", "İ", "\xff bad byte", "\uFFFD", "mixed 数据 Q1"} {
		if got, want := IsLower(s), strings.ToLower(s) == s; got != want {
			t.Errorf("IsLower(%q) = %v, want %v", s, got, want)
		}
	}
}
