#!/usr/bin/env bash
# What `make test` needs from the system besides Python and Node: Debian's Chromium, which
# the browser tests drive (at /usr/bin/chromium), and a Java runtime, which runs the Nu Html
# Checker. Installed with apt when missing, as root or through password-less sudo; where
# that cannot be done, one line says what to install and nothing else runs.
# Runs before npm ci: vnu-jar's install step looks for a Java and would otherwise fetch one.
set -euo pipefail

chromium=${RIDGEPOINT_CHROMIUM:-/usr/bin/chromium}
missing=()
[[ -x $chromium ]] || missing+=(chromium)
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
((${#missing[@]})) || exit 0

needs="make test needs ${missing[*]} (Debian packages)"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "$needs and this machine has no apt-get: install Chromium at $chromium and a Java runtime, then run make test again" >&2
    exit 1
fi
if [[ $(id -u) -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    echo "$needs: run 'sudo apt-get install ${missing[*]}', then make test again" >&2
    exit 1
fi
echo "make test: installing ${missing[*]} with apt-get (browser tests and the HTML checker need them)"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
