#!/usr/bin/env bash
# The browser tests drive Debian's chromium (playwright-core brings no browser of its own).
# Installs it with apt when it is missing; fails with the reason when that cannot be done.
# CHROMIUM_PATH names another binary.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$chromium" ]; then
  exit 0
fi
fail() {
  echo "ensure-chromium: $chromium is missing and $1." >&2
  echo "ensure-chromium: install it (Debian: apt-get install -y --no-install-recommends chromium)" \
    "or set CHROMIUM_PATH to a Chromium binary; the browser tests need it." >&2
  exit 1
}
if [ "$chromium" != /usr/bin/chromium ]; then fail "CHROMIUM_PATH is not installed by apt"; fi
command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available on this machine"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else fail "installing it needs root"; fi
fi
echo "ensure-chromium: installing chromium with apt-get (once per machine)…" >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists may be there already (an install needs no update then); an update that fails
# for one unrelated source must not stop the install.
if ! $sudo apt-get install -y -qq --no-install-recommends chromium >&2; then
  $sudo apt-get update -qq >&2 || echo "ensure-chromium: apt-get update reported errors; trying the install" >&2
  $sudo apt-get install -y -qq --no-install-recommends chromium >&2 || fail "apt-get install chromium failed"
fi
[ -x "$chromium" ] || fail "apt-get installed no $chromium"
echo "ensure-chromium: $("$chromium" --version 2>/dev/null || echo chromium) installed" >&2
