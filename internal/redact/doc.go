// Package redact removes credentials from text before it reaches disk: every session, tool and
// dream log line, every file the store writes and every sidecar log record passes through Text.
//
// Known token formats come from the gitleaks rule set (regexes with keywords, entropy thresholds and
// allowlists, maintained upstream); the context rules add only what those rules do not see in chat
// and shell text. Only the secret value is replaced (by Marker), so key names, schemes and users stay
// readable, and running Text on its own output changes nothing.
//
// Files, by job:
//
//	redact.go   Text/TextCount: the gitleaks detector, finding spans and replacing them in one pass
//	rules.go    the context rules (passwords in sentences, shell flags, URLs, PEM blocks …) and the
//	            value classes that decide whether a captured value looks like a secret
package redact
