package textseg

import (
	"reflect"
	"testing"
)

func TestSentences(t *testing.T) {
	got := Sentences("Deploy v1.2 to example.com today. The port is 6.5k? No!\n第一句。第二句！")
	want := []string{"Deploy v1.2 to example.com today.", "The port is 6.5k?", "No!", "第一句。", "第二句！"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
}
