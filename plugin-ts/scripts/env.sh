# Sourced by the plugin-ts scripts: pinned versions and local paths. No side effects beyond variables.
PLUGIN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_DIR="$(cd "$PLUGIN_DIR/.." && pwd)"
HARNESS_DIR="$PLUGIN_DIR/.harness"
NODE_VERSION="${SOMNI_NODE_VERSION:-22.23.5}"
PNPM_VERSION="${SOMNI_PNPM_VERSION:-10.34.9}"
DSH_VERSION="0.1.0-rc.8"
NODE_HOME="$HARNESS_DIR/node-$NODE_VERSION"
PNPM_HOME_DIR="$HARNESS_DIR/pnpm-$PNPM_VERSION"
DSH_DIR="$HARNESS_DIR/dsh-$DSH_VERSION"
SIDECAR_BIN="${SOMNI_SIDECAR_BIN:-$REPO_DIR/bin/somni-sidecar}"
# Node 22 first (the harness needs >= 22.15), then the local pnpm and the harness's bin folder.
export PATH="$NODE_HOME/bin:$PNPM_HOME_DIR/node_modules/.bin:$DSH_DIR/node_modules/.bin:$PATH"
export npm_config_update_notifier=false
# Node only trusts its bundled CAs; on machines whose TLS goes through a local CA (CI, sandboxes) the
# npm registry fetches fail unless NODE_EXTRA_CA_CERTS names the system bundle. Find it when unset.
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ]; then
  for _ca in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
    if [ -r "$_ca" ]; then export NODE_EXTRA_CA_CERTS="$_ca"; break; fi
  done
  unset _ca
fi
