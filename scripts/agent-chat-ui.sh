#!/usr/bin/env bash
# Build LangChain's Agent Chat UI (vendored in clients/agent-chat-ui, see its POLICYPAL.md) for the
# e2e test tests/e2e/test_agent_chat_ui.py, once per content of that folder (its lockfile included):
# the build lives in build/agent-chat-ui/<hash>, so CI pays for `npm ci` + `next build` once per
# change of the client (CI links build/agent-chat-ui to a per-machine cache). Prints the build's folder; serve it with `npx next start` from there.
set -euo pipefail
cd "$(dirname "$0")/.."
src=clients/agent-chat-ui
key=$(cd "$src" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
out=build/agent-chat-ui/$key
if [ ! -f "$out/.built" ]; then
    command -v npm >/dev/null || { echo "npm is required (apt-get install nodejs npm)" >&2; exit 1; }
    mkdir -p build/agent-chat-ui
    find -H build/agent-chat-ui -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +  # older builds
    rm -rf "$out" && cp -a "$src" "$out"
    (
        cd "$out"
        npm ci --no-audit --no-fund --loglevel=error
        NEXT_TELEMETRY_DISABLED=1 npx --no-install next build
    ) >&2
    touch "$out/.built"
fi
echo "$out"
