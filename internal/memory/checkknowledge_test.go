package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCheckKnowledgeAgreesWithCreate: CheckKnowledge refuses exactly what
// CreateKnowledge refuses for its input (a duplicate aside), and writes
// nothing; a share proposal is checked by it before it waits for a person.
func TestCheckKnowledgeAgreesWithCreate(t *testing.T) {
	tests := []struct {
		name, typ, desc, body string
		refuse                error // nil: accepted
	}{
		{name: "staging-pg-port", typ: "fact", desc: "Our staging Postgres listens on 6543", body: "Port 6543, not 5432."},
		{name: "默认端口", typ: "", desc: "a description", body: "body"},
		{name: "", typ: "fact", desc: "d", body: "b", refuse: ErrUnsafeName},
		{name: "../up", typ: "fact", desc: "d", body: "b", refuse: ErrUnsafeName},
		{name: "archived", typ: "fact", desc: "d", body: "b", refuse: ErrUnsafeName},
		{name: "ghp_" + strings.Repeat("a1B2c3D4e5", 4), typ: "fact", desc: "d", body: "b", refuse: ErrUnsafeName},
		{name: "ok-name", typ: "episode", desc: "d", body: "b", refuse: ErrInvalid},
		{name: "ok-name", typ: "two words", desc: "d", body: "b", refuse: ErrInvalid},
		{name: "ok-name", typ: "fact", desc: "  ", body: "b", refuse: ErrInvalid},
		{name: "ok-name", typ: "fact", desc: strings.Repeat("x", maxDescriptionRunes+1), body: "b", refuse: ErrInvalid},
		{name: "ok-name", typ: "fact", desc: "d", body: "\n ", refuse: ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/"+tc.typ, func(t *testing.T) {
			st := newTestStore(t)
			checked := CheckKnowledge(KnowledgeInput{Name: tc.name, Type: tc.typ, Description: tc.desc, Body: tc.body})
			_, created := st.CreateKnowledge(context.Background(), KnowledgeInput{Name: tc.name, Type: tc.typ, Description: tc.desc, Body: tc.body, Verified: true})
			if tc.refuse == nil {
				if checked != nil || created != nil {
					t.Fatalf("refused: check %v, create %v", checked, created)
				}
				return
			}
			if !errors.Is(checked, tc.refuse) || !errors.Is(created, tc.refuse) {
				t.Fatalf("check %v, create %v; want both %v", checked, created, tc.refuse)
			}
			if checked.Error() != created.Error() {
				t.Errorf("check says %q, create %q", checked, created)
			}
		})
	}
}
