package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// compatArg is one argument of a work tool as the Python sidecar's schema
// has it: prompts and skills in the wild call these names with these types.
type compatArg struct {
	name, typ string
	def       any // nil: required; "": optional with no default shown
}

// compatWorkTools is the compat document's work-tool list, argument by argument.
var compatWorkTools = map[string][]compatArg{
	"recall_memories":            {{"query", "string", nil}, {"types", "string", ""}, {"limit", "integer", 5.0}},
	"search_episodes":            {{"query", "string", ""}, {"since", "string", ""}, {"until", "string", ""}, {"tags", "string", ""}, {"limit", "integer", 20.0}},
	"search_recent_conversation": {{"query", "string", ""}, {"limit", "integer", 20.0}},
	"search_knowledge":           {{"query", "string", ""}, {"entry_type", "string", ""}, {"limit", "integer", 10.0}},
	"add_intention":              {{"what", "string", nil}, {"due", "string", ""}, {"cue", "string", ""}, {"priority", "string", "mid"}, {"source", "string", ""}},
	"complete_intention":         {{"intention_id", "string", nil}},
	"cancel_intention":           {{"intention_id", "string", nil}},
	"list_intentions":            {},
}

// Budgets of what tools.list puts into every model request, counted in
// characters of the compact JSON. Measured when set: 2 895 in total (was
// 3 617), add_intention the largest at 574. The headroom lets the date
// arguments name the phrases they accept ("tomorrow", "下周五") while a
// return to the old size, or one tool's text ballooning, fails here.
const (
	toolsListBudget = 3050
	perToolBudget   = 640
)

// TestToolSchemasAreLean pins what tools.list costs on every request and
// that trimming it kept every compat argument with its type, required-ness
// and default, with no `"default":""` the Python schema does not have.
func TestToolSchemasAreLean(t *testing.T) {
	s := start(t, t.TempDir(), nil)
	var tl struct {
		Tools []json.RawMessage `json:"tools"`
	}
	s.call("tools.list", nil, &tl)

	total := 0
	seen := map[string]bool{}
	var sizes []string
	for _, raw := range tl.Tools {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			t.Fatal(err)
		}
		n := utf8.RuneCount(buf.Bytes())
		total += n
		var tool struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  struct {
				Type       string                                `json:"type"`
				Properties map[string]map[string]json.RawMessage `json:"properties"`
				Required   []string                              `json:"required"`
			} `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fmt.Sprintf("%s=%d", tool.Name, n))
		if n > perToolBudget {
			t.Errorf("%s schema is %d characters, budget %d: trim its descriptions to what changes the model's choice", tool.Name, n, perToolBudget)
		}
		want, ok := compatWorkTools[tool.Name]
		if !ok {
			t.Errorf("tool %s is not in the compat list", tool.Name)
			continue
		}
		seen[tool.Name] = true
		if strings.TrimSpace(tool.Description) == "" || tool.Parameters.Type != "object" {
			t.Errorf("%s: empty description or parameters type %q", tool.Name, tool.Parameters.Type)
		}
		var wantReq []string
		for _, a := range want {
			p, ok := tool.Parameters.Properties[a.name]
			if !ok {
				t.Errorf("%s lost argument %s", tool.Name, a.name)
				continue
			}
			var typ, desc string
			json.Unmarshal(p["type"], &typ)
			json.Unmarshal(p["description"], &desc)
			if typ != a.typ || strings.TrimSpace(desc) == "" {
				t.Errorf("%s.%s: type %q description %q, want type %s and a description", tool.Name, a.name, typ, desc, a.typ)
			}
			rawDef, hasDef := p["default"]
			switch {
			case a.def == nil:
				wantReq = append(wantReq, a.name)
				if hasDef {
					t.Errorf("%s.%s is required but shows default %s", tool.Name, a.name, rawDef)
				}
			case a.def == "":
				if hasDef {
					t.Errorf(`%s.%s shows "default": %s; the Python schema has none for an empty string`, tool.Name, a.name, rawDef)
				}
			default:
				var got any
				json.Unmarshal(rawDef, &got)
				if got != a.def {
					t.Errorf("%s.%s default %v, want %v", tool.Name, a.name, got, a.def)
				}
			}
		}
		if len(tool.Parameters.Properties) != len(want) {
			t.Errorf("%s has %d arguments, compat has %d", tool.Name, len(tool.Parameters.Properties), len(want))
		}
		got := append([]string(nil), tool.Parameters.Required...)
		sort.Strings(got)
		sort.Strings(wantReq)
		if strings.Join(got, ",") != strings.Join(wantReq, ",") {
			t.Errorf("%s required %v, want %v", tool.Name, got, wantReq)
		}
	}
	for name := range compatWorkTools {
		if !seen[name] {
			t.Errorf("tools.list lacks %s", name)
		}
	}
	t.Logf("tools.list: %d characters (%s)", total, strings.Join(sizes, ", "))
	if total > toolsListBudget {
		t.Errorf("tools.list is %d characters, budget %d: every request carries it", total, toolsListBudget)
	}
}
