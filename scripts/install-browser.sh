#!/usr/bin/env bash
# Chromium for Playwright: Playwright's own build where `playwright install` can download it,
# else Debian's chromium package (/usr/bin/chromium), which tools/browser.py finds by itself.
set -u
py=${1:-.venv/bin/python}
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if timeout 300 "$py" -m playwright install chromium >/tmp/agentpair-playwright-install.log 2>&1; then
  exit 0
fi
echo "playwright install failed (offline?): installing Debian's chromium" >&2
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
$sudo_cmd apt-get update -q >/dev/null && \
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends chromium >/dev/null
test -x /usr/bin/chromium || { echo "no Chromium could be installed" >&2; exit 1; }
