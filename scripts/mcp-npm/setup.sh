#!/usr/bin/env bash
# Installs the independent MCP client the npm-side MCP test uses: the TypeScript SDK
# (@modelcontextprotocol/sdk), pinned in scripts/mcp-npm/package.json and package-lock.json, into
# .cache/mcp-client-<version> (gitignored) with `npm ci`. Idempotent: a stamp holding the lockfile's
# sha256 makes a rerun a no-op. Prints the install folder (holding node_modules) on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(bash "$ROOT/scripts/npm-tool.sh" "$ROOT/scripts/mcp-npm" @modelcontextprotocol/sdk mcp-client)"
echo "$dir"
