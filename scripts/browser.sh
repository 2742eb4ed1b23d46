#!/usr/bin/env bash
# Browser tests drive Debian's Chromium; Playwright never downloads a browser of its own.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null
  else
    echo "Chromium is missing: install Debian's chromium and chromium-driver (browser tests will be skipped)" >&2
  fi
fi
