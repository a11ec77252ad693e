package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SecretNameToken is the npm token some of SecretNames carry.
const SecretNameToken = "npm_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"

// SecretNames are names that become folders (an entry's, a user id): those
// that hold a secret must be refused, those that only mention tokens and
// passwords made as asked.
var SecretNames = []struct {
	Name   string
	Refuse bool
}{
	{"deploy-" + SecretNameToken, true},
	{SecretNameToken, true},
	{"password=Hunter2-Staging-42", true},
	{"feishu:[REDACTED]", true}, // an id a session log's header already redacted
	{"api-token-rotation", false},
	{"password-policy", false},
	{"telegram:123456789", false},
}

// CheckSecretNameRefused fails t unless err is unsafe saying the name holds
// a secret without showing it, and no path under dir carries the secret
// (nor the redaction mark that would stand for it).
func CheckSecretNameRefused(t *testing.T, err, unsafe error, dir string) {
	t.Helper()
	if !errors.Is(err, unsafe) || !strings.Contains(err.Error(), "holds a secret") ||
		strings.Contains(err.Error(), "Hunter2-Staging-42") || strings.Contains(err.Error(), SecretNameToken) {
		t.Fatalf("err = %v", err)
	}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		rel, _ := filepath.Rel(dir, p) // the temp dir is named after the test
		if err == nil && (strings.Contains(rel, "Hunter2") || strings.Contains(rel, SecretNameToken) || strings.Contains(rel, "REDACTED")) {
			t.Errorf("written: %s", rel)
		}
		return nil
	})
}
