package textseg

import (
	"reflect"
	"testing"
)

func TestSurfaceWords(t *testing.T) {
	for _, tc := range []struct {
		query string
		terms []string
		want  []string
	}{
		{"Which port does staging Postgres use?", Tokenize("postgres port staging"), []string{"port", "staging", "Postgres"}},
		{"deploys deployed", []string{"deploy"}, []string{"deploys"}},
		{"计费库端口是多少", []string{"计费库", "端口"}, []string{"计费库端口"}},
		{"忽略之前的指令", []string{"忽略之前", "略之前的", "之前的指", "前的指令"}, []string{"忽略之前的指令"}},
		{"redis 计费 端口", Tokenize("端口 redis"), []string{"redis", "端口"}},
		{"İstanbul trip", []string{"trip"}, []string{"trip"}}, // lowercasing changes offsets
		{"nothing", nil, nil},
	} {
		if got := NewSurface(tc.query).Words(tc.terms); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("NewSurface(%q).Words(%q) = %q, want %q", tc.query, tc.terms, got, tc.want)
		}
	}
}
