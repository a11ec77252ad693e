package embed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// localGlossFixture is a few CC-CEDICT lines covering what the parser must
// handle: traditional and simplified forms, names before common senses,
// cross-references, function characters, and lines that are not entries.
const localGlossFixture = `# CC-CEDICT fixture
#! entries=15
上線 上线 [shang4 xian4] /to go online/to put sth online/
上 上 [shang4] /on top/upon/
線 线 [xian4] /thread/string/wire/line/
新 新 [xin1] /new/newly/meso- (chemistry)/
版本 版本 [ban3 ben3] /version/edition/release/
步驟 步骤 [bu4 zhou4] /procedure/step/
的 的 [de5] /of/~'s (possessive particle)/
李 李 [Li3] /surname Li/
李 李 [li3] /plum/
喝 喝 [he1] /to drink/variant of 嗬[he1]/
喝 喝 [he4] /to shout loudly/
北京 北京 [Bei3 jing1] /Beijing, capital of the People's Republic of China/
個 个 [ge4] /individual/this/that/size/classifier for people or objects in general/
這是一行壞數據
咖啡 咖啡 [ka1 fei1] /coffee (loanword)/CL:杯[bei1]/
`

func localGlossTestFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), localGlossFile)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLocalGlossText(t *testing.T) {
	g, err := localLoadGlossary(localGlossTestFile(t, localGlossFixture))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string
		covered        int
	}{
		{"longest words win", "上线新版本的步骤", " go online put sth online new newly meso- version edition release procedure step ", 7},
		{"traditional form", "上線步驟", " go online put sth online procedure step ", 4},
		{"name entry loses to a common one", "李", " plum ", 1},
		{"name kept when it is all there is", "北京", " Beijing, capital of the People's Republic of China ", 2},
		{"cross-reference and interjection senses dropped", "喝咖啡", " drink coffee ", 3},
		{"unknown characters glossed to nothing", "龘上线", " go online put sth online ", 2},
		{"latin text kept around glossed runs", "Redis 上线了", "Redis  go online put sth online ", 2},
		{"no CJK", "plain english", "plain english", 0},
		{"empty", "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, covered := g.glossText(tc.in)
			if got != tc.want || covered != tc.covered {
				t.Errorf("glossText(%q) = %q, %d; want %q, %d", tc.in, got, covered, tc.want, tc.covered)
			}
		})
	}
}

func TestLocalGlossaryErrors(t *testing.T) {
	if _, err := localLoadGlossary(filepath.Join(t.TempDir(), "missing.u8")); err == nil {
		t.Error("missing file: no error")
	}
	_, err := localLoadGlossary(localGlossTestFile(t, "# only comments\nnot a dictionary line\n{\"json\": true}\n"))
	if err == nil || !strings.Contains(err.Error(), "no usable entry") {
		t.Errorf("file without entries: err = %v, want one saying no entry was usable", err)
	}
}

// The dictionary `make models` installs must gloss the words memories use.
func TestLocalGlossRealDictionary(t *testing.T) {
	p := localTestRepoPath("models", "use-lite", localGlossFile)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s missing: run `make models` first", p)
	}
	g, err := localLoadGlossary(p)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"数据库": "database",
		"端口":  "port",
		"步骤":  "procedure",
		"乌龙茶": "oolong",
		"笔记本": "notebook",
		"回滚":  "roll",
	} {
		if got, _ := g.glossText(in); !strings.Contains(got, want) {
			t.Errorf("glossText(%q) = %q, want it to contain %q", in, got, want)
		}
	}
	t.Logf("%d words", len(g.words))
}

// BenchmarkLocalGlossary measures loading the installed CC-CEDICT file
// (part of the local embedder's background load) and glossing one note.
func BenchmarkLocalGlossary(b *testing.B) {
	p := localTestRepoPath("models", "use-lite", localGlossFile)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s missing: run `make models` first", p)
	}
	var g *localGlossary
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			var err error
			if g, err = localLoadGlossary(p); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/load")
	})
	b.Run("gloss", func(b *testing.B) {
		for b.Loop() {
			g.glossText("预发环境验证通过后先灰度百分之十的流量，观察错误率和延迟十五分钟再全量发布。")
		}
	})
}
