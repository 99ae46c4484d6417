#!/usr/bin/env bash
# Installs the Debian packages the site needs, only those missing: `scripts/system-deps.sh run`
# for `make run` (redis-server; nginx, the site's one origin in front of its two web servers),
# `scripts/system-deps.sh test` for `make test` (those, Chromium for the browser test,
# docker-compose to validate docker-compose.yml), `scripts/system-deps.sh bench` for `make bench` (wrk, the load generator).
set -euo pipefail

want=(redis-server:redis-server nginx:nginx)
if [[ "${1:-run}" == "test" ]]; then
  want+=(chromium:chromium docker-compose:docker-compose)
elif [[ "${1:-run}" == "bench" ]]; then
  want+=(wrk:wrk)
fi

missing=()
for item in "${want[@]}"; do
  command -v "${item%%:*}" >/dev/null 2>&1 || [[ -x "/usr/bin/${item%%:*}" ]] || [[ -x "/usr/sbin/${item%%:*}" ]] \
    || missing+=("${item##*:}")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing system packages: ${missing[*]}." >&2
  echo "Install them as root, e.g.: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]} with apt-get ..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
