package ort

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// headerSlots counts the function-pointer members of struct OrtApi in
// onnxruntime_c_api.h: each member is one ORT_API2_STATUS(Name, …),
// ORT_CLASS_RELEASE(Name) (→ ReleaseName) or ret(ORT_API_CALL* Name)(…).
func headerSlots(t *testing.T, header string) map[string]int {
	t.Helper()
	src := string(header)
	start := strings.Index(src, "struct OrtApi {")
	if start < 0 {
		t.Fatal("no struct OrtApi in the header")
	}
	end := strings.Index(src[start:], "\n};")
	body := src[start : start+end]
	body = regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(body, "")
	body = regexp.MustCompile(`//[^\n]*`).ReplaceAllString(body, "")
	member := regexp.MustCompile(`ORT_API2_STATUS\(\s*(\w+)|ORT_CLASS_RELEASE\(\s*(\w+)\s*\)|\(ORT_API_CALL\s*\*\s*(\w+)\s*\)`)
	slots := map[string]int{}
	for i, m := range member.FindAllStringSubmatch(body, -1) {
		name := m[1] + m[3]
		if m[2] != "" {
			name = "Release" + m[2]
		}
		slots[name] = i
	}
	return slots
}

func TestCAPISlotsMatchHeader(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yalue/onnxruntime_go").Output()
	if err != nil {
		t.Skipf("cannot locate onnxruntime_go's header: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "onnxruntime_c_api.h"))
	if err != nil {
		t.Fatal(err)
	}
	slots := headerSlots(t, string(raw))
	if len(slots) < 300 {
		t.Fatalf("counted %d OrtApi members; the header parser is broken", len(slots))
	}
	for name, want := range capiSlots {
		got, ok := slots[name]
		if !ok {
			t.Errorf("%s not in struct OrtApi", name)
		} else if got != want {
			t.Errorf("%s is slot %d in the header, capi.go says %d", name, got, want)
		}
	}
}
