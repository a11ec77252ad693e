package change

import "testing"

func TestClaimsCover(t *testing.T) {
	for _, c := range []struct {
		name, newer, older string
		want               bool
	}{
		{"instruction updated", "Now, regarding variable naming, I'd like you to make a small change. From now on, always start your variable names with 'w_'.",
			"Second, start your variable names with 'x_'. Got it?", true},
		{"other convention", "From now on, always start your variable names with 'w_'.",
			"First, always end your method names with '_md'.", false},
		{"port moved", "The staging kafka port is 9094 now.", "Our staging kafka listens on port 9092.", true},
		{"port moved zh", "staging kafka 端口改成 9094 了", "我们 staging kafka 的端口是 9092。", true},
		{"zh 改为", "测试库的端口改为 6543。", "测试库端口是 5432，用户名 test。", true},
		{"traditional", "測試庫的端口改為 6543。", "测试库端口是 5432。", true},
		{"no change said", "The staging kafka port is 9094.", "Our staging kafka listens on port 9092.", false},
		{"different thing", "The billing db moved to db-billing-03 last night.", "Our staging kafka listens on port 9092.", false},
		{"one shared word", "Lunch moved to noon.", "The lunch menu has soup.", false},
		{"request not a change", "Run the tests now.", "Run the tests before you push.", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := false
			for _, cl := range Claims(c.newer) {
				got = got || cl.Covers(c.older)
			}
			if got != c.want {
				t.Errorf("Claims(%q) %v covers %q = %v, want %v", c.newer, Claims(c.newer), c.older, got, c.want)
			}
		})
	}
}

func TestAsksPast(t *testing.T) {
	for _, c := range []struct {
		q       string
		bounded bool
		want    bool
	}{
		{"What port did staging kafka use before?", false, true},
		{"What was the original variable prefix?", false, true},
		{"Which prefix did I use originally?", false, true},
		{"What was our old deploy host?", false, true},
		{"staging kafka 原来的端口是多少？", false, true},
		{"之前的变量前缀是什么", false, true},
		{"舊的端口是多少", false, true},
		{"What port does staging kafka use?", false, false},
		{"staging kafka 端口是多少", false, false},
		{"What did we use before March 2026?", true, false},
		{"3月以前用的是什么", true, false},
		{"What did we originally use before March 2026?", true, true},
		{"Run the tests before you push", false, false},
	} {
		if got := AsksPast(c.q, c.bounded); got != c.want {
			t.Errorf("AsksPast(%q, %v) = %v, want %v", c.q, c.bounded, got, c.want)
		}
	}
}
