#!/usr/bin/env bash
# Start a host (one bot, plaintext, loopback), run this seat against it, verify the seat's record, stop the host.
# usage: examples/node-seat/run.sh [OUTDIR]    (after `npm install` in examples/node-seat and the README's set-up)
set -u
here="$(cd "$(dirname "$0")" && pwd)"; repo="$(cd "$here/../.." && pwd)"
out=${1:-/tmp/node-seat}; rm -rf "$out"; mkdir -p "$out/xdg/config" "$out/xdg/data"
export XDG_CONFIG_HOME="$out/xdg/config" XDG_DATA_HOME="$out/xdg/data"
"$repo/.venv/bin/watten-host" --headless --players 2 --bots 1 --bind 127.0.0.1 --port 0 --no-announce --insecure \
    > "$out/host.log" 2>&1 &
host=$!
port=""
for _ in $(seq 50); do
    port=$(grep -oE '127\.0\.0\.1:[0-9]+' "$out/host.log" | grep -oE '[0-9]+$' | head -1)
    [ -n "$port" ] && break
    sleep 0.2
done
node "$here/seat.js" "127.0.0.1:$port" "$out/seat" > "$out/seat.log" 2>&1; echo "seat: exit $?"
sleep 1; kill "$host" 2>/dev/null; wait "$host" 2>/dev/null
for record in "$out"/seat/*.wrec; do "$repo/.venv/bin/watten-verify" "$record"; done
