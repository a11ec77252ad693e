package dream

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

// TestToolSchemasKeepCompatArguments checks the dreamer's tools against the
// compat list: a strategy override written for the Python sidecar names
// these arguments, so none may be lost, retyped or made required.
func TestToolSchemasKeepCompatArguments(t *testing.T) {
	type arg struct {
		name, typ string
		def       any // nil: required; "": optional, no default shown
	}
	want := map[string][]arg{
		toolReadSessionLog:     {{"path", "string", nil}},
		toolListItems:          {{"scope", "string", "all"}},
		toolReadItem:           {{"name", "string", nil}},
		toolCreateKnowledge:    {{"name", "string", nil}, {"entry_type", "string", nil}, {"description", "string", nil}, {"body", "string", nil}, {"verified", "boolean", true}, {"supersedes", "string", ""}},
		toolUpdateKnowledge:    {{"name", "string", nil}, {"description", "string", ""}, {"body", "string", ""}, {"stability_delta", "integer", 0.0}, {"score_delta", "number", 0.0}},
		toolCreateSkill:        {{"name", "string", nil}, {"description", "string", nil}, {"body", "string", nil}, {"verified", "boolean", true}},
		toolUpdateSkill:        {{"name", "string", nil}, {"description", "string", ""}, {"body", "string", ""}, {"merge_note", "string", ""}, {"stability_delta", "integer", 0.0}, {"score_delta", "number", 0.0}},
		toolArchiveItem:        {{"name", "string", nil}},
		toolRecordEpisode:      {{"what", "string", nil}, {"outcome", "string", "unknown"}, {"objects", "string", ""}, {"tools", "string", ""}, {"tags", "string", ""}, {"salience", "string", "low"}, {"when", "string", ""}, {"source", "string", ""}},
		toolMarkLogProcessed:   {{"path", "string", nil}},
		toolWriteDreamLog:      {{"content", "string", nil}},
		toolDecayAllKnowledge:  {},
		toolReviewDreamHistory: {{"path", "string", ""}},
		toolUpdateAboutMe:      {{"content", "string", nil}},
		toolUpdateAboutUser:    {{"content", "string", nil}, {"user_id", "string", "default"}},
	}
	tools := Tools()
	if len(tools) != len(want) {
		t.Fatalf("%d dreamer tools, want %d", len(tools), len(want))
	}
	for _, tool := range tools {
		args, ok := want[tool.Function.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Function.Name)
			continue
		}
		var sch struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(tool.Function.Parameters, &sch); err != nil {
			t.Fatal(err)
		}
		var req []string
		for _, a := range args {
			p, ok := sch.Properties[a.name]
			if !ok {
				t.Errorf("%s lost %s", tool.Function.Name, a.name)
				continue
			}
			def, hasDef := p["default"]
			switch {
			case p["type"] != a.typ:
				t.Errorf("%s.%s type %v, want %s", tool.Function.Name, a.name, p["type"], a.typ)
			case a.def == nil:
				req = append(req, a.name)
			case a.def == "" && hasDef:
				t.Errorf(`%s.%s shows "default": %v; Python shows none for ""`, tool.Function.Name, a.name, def)
			case a.def != "" && def != a.def:
				t.Errorf("%s.%s default %v, want %v", tool.Function.Name, a.name, def, a.def)
			}
		}
		sort.Strings(req)
		got := append([]string(nil), sch.Required...)
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(req, ",") || len(sch.Properties) != len(args) {
			t.Errorf("%s: required %v (want %v), %d arguments (want %d)", tool.Function.Name, got, req, len(sch.Properties), len(args))
		}
	}
}
