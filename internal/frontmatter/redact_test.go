package frontmatter

import (
	"strings"
	"testing"
)

// TestRedactHeader: a secret anywhere in a header — a comment line, a
// comment after a value, a value only its key marks, a value YAML spreads
// over lines away from its key, a key that is a token — is written
// redacted, the rest of the file as it was where it can be; each output
// parses, as YAML when its input did.
func TestRedactHeader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		secret   string
		want     string // "" ⇒ only that the secret is gone
		values   map[string]string
	}{
		{name: "comment line",
			in:     "---\nname: a\n# aws_secret_access_key: Xk4rTnZ8pLq2Wv9yB6mC1dFh3jS5gA7eR0uI8oPw\ndescription: d\n---\n\nbody\n",
			secret: "Xk4rTnZ8pLq2Wv9yB6mC1dFh3jS5gA7eR0uI8oPw",
			want:   "---\nname: a\n# aws_secret_access_key: [REDACTED]\ndescription: d\n---\n\nbody\n"},
		{name: "comment after a value",
			in:     "---\nname: a\ndescription: staging db # db password=Hunter2-Staging-42\n---\n\nbody\n",
			secret: "Hunter2-Staging-42",
			want:   "---\nname: a\ndescription: staging db # db password=[REDACTED]\n---\n\nbody\n",
			values: map[string]string{"description": "staging db"}},
		{name: "password key",
			in:     "---\nname: a\npassword: Hunter2-Staging-42\n---\n\nbody\n",
			secret: "Hunter2-Staging-42",
			want:   "---\nname: a\npassword: \"[REDACTED]\"\n---\n\nbody\n",
			values: map[string]string{"password": "[REDACTED]"}},
		{name: "db_password key keeps its comment",
			in:     "---\nname: a\ndb_password: Pg-Prod-Secret-7731 # rotated in May\n---\n\nbody\n",
			secret: "Pg-Prod-Secret-7731",
			values: map[string]string{"db_password": "[REDACTED]"}},
		{name: "api_token key, quoted value",
			in:     "---\nname: a\napi_token: 'tok-staging-2024-blue'\n---\n\nbody\n",
			secret: "tok-staging-2024-blue",
			want:   "---\nname: a\napi_token: '[REDACTED]'\n---\n\nbody\n",
			values: map[string]string{"api_token": "[REDACTED]"}},
		{name: "CRLF lines",
			in:     "---\r\nname: a\r\npassword: Hunter2-Staging-42\r\n---\r\n\r\nbody\r\n",
			secret: "Hunter2-Staging-42",
			want:   "---\r\nname: a\r\npassword: \"[REDACTED]\"\r\n---\r\n\r\nbody\r\n"},
		{name: "folded value away from its key",
			in:     "---\nname: a\npassword: >\n  Hunter2-Staging-42\n---\n\nbody\n",
			secret: "Hunter2-Staging-42",
			values: map[string]string{"password": "[REDACTED]"}},
		{name: "a key that is a token",
			in:     "---\nname: a\nghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6: true\n---\n\nbody\n",
			secret: "ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
			values: map[string]string{"name": "a", "REDACTED": "true"}},
		{name: "no front-matter",
			in:     "password: Hunter2-Staging-42\n",
			secret: "Hunter2-Staging-42",
			want:   "password: [REDACTED]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := Redact("f.md", []byte(tc.in))
			got := string(out)
			if !ok || strings.Contains(got, tc.secret) {
				t.Fatalf("ok=%v, secret kept:\n%s", ok, got)
			}
			if tc.want != "" && got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			doc, err := Parse("f.md", out)
			if err != nil {
				t.Fatalf("the output does not parse: %v\n%s", err, got)
			}
			for k, v := range tc.values {
				if doc.Meta.Value(k) != v {
					t.Errorf("%s = %q, want %q", k, doc.Meta.Value(k), v)
				}
			}
			if in, _, _, _ := splitFrontMatter(tc.in); in != nil && readsAsYAML(in) {
				if h, _, _, _ := splitFrontMatter(got); !readsAsYAML(h) {
					t.Errorf("the input read as YAML, the output does not:\n%s", got)
				}
			}
			if again, ok := Redact("f.md", out); ok || string(again) != got {
				t.Errorf("a second redaction changed it:\n%s", again)
			}
		})
	}
}

// TestRedactLookAlikes: headers that only look like they hold secrets come
// back as the very bytes they were.
func TestRedactLookAlikes(t *testing.T) {
	for _, in := range []string{
		"---\n# reviewed with the platform team\nname: staging-db\ndescription: the staging database # see the runbook\n" +
			"password_policy: at least 14 characters\ntoken_count: 12\nsecret_name: prod/db\napi_token_ttl: 30d\n" +
			"# tokens are counted per session\ntags: [db, staging]\n---\n\nThe staging database runs on db-stg-1.\n",
		"---\nname: api-token-rotation\ndescription: \"rotating the api token: every quarter\"\nkey: docker-build-cache\n---\n\nRotate it.\n",
		"\ufeff---\nname: a\ndescription: b\n---\nno blank line\n",
		"---\nname: a\n---\n",
	} {
		out, ok := Redact("f.md", []byte(in))
		if ok || string(out) != in {
			t.Errorf("changed:\n%q\n%q", in, out)
		}
	}
}
