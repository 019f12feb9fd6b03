#!/usr/bin/env bash
# Start a trustless host (bots, plaintext, loopback) from this repository, run the Level 2 seat against it, then
# `watten-verify` and this folder's own checker on the seat's record and the host's.
# usage: examples/node-trustless-seat/run.sh [OUTDIR] [host options, e.g. --players 4 --bots 3 --rules wurf]
#        (2 players, 1 bot unless the options say otherwise)
#        (after `npm ci` here; PYTHON=/path/to/venv/bin/python if the repository has no .venv of its own)
# Test switches (environment): SEAT_PROBE=1 (deliberately bad envelopes), SEAT_SEAL=1 (provoke sealed shares),
# SEAT_AWAY=S (owe a step S seconds), SEAT_CRASH=h (crash in hand h, then restart), SEAT_BESSERE=1, SEAT_CHEAT=1|all.
set -u
here="$(cd "$(dirname "$0")" && pwd)"; repo="$(cd "$here/../.." && pwd)"
py=${PYTHON:-$repo/.venv/bin/python}
out=${1:-/tmp/node-trustless-seat}; shift || true
rm -rf "$out"; mkdir -p "$out/xdg/config" "$out/xdg/data"
export XDG_CONFIG_HOME="$out/xdg/config" XDG_DATA_HOME="$out/xdg/data" PYTHONPATH="$repo"
"$py" -m host.main --headless --players 2 --bots 1 --set deal=trustless "$@" --bind 127.0.0.1 --port 0 --no-announce \
    --insecure --record "$out/host" > "$out/host.log" 2>&1 &
host=$!
port=""
for _ in $(seq 100); do
    port=$(grep -oE '127\.0\.0\.1:[0-9]+' "$out/host.log" | grep -oE '[0-9]+$' | head -1)
    [ -n "$port" ] && break
    sleep 0.2
done
[ -n "$port" ] || { echo "the host did not start: see $out/host.log"; kill "$host" 2>/dev/null; exit 1; }
node "$here/seat_l2.js" "127.0.0.1:$port" "$out/seat" > "$out/seat.log" 2>&1; rc=$?; echo "seat: exit $rc"
if [ "$rc" = 9 ]; then  # SEAT_CRASH: the seat "crashed" on purpose; start it again on the same folder
    sleep "${RESTART_AFTER:-2}"; node "$here/seat_l2.js" "127.0.0.1:$port" "$out/seat" > "$out/seat2.log" 2>&1
    echo "restarted seat: exit $?"
fi
sleep 1; kill "$host" 2>/dev/null; wait "$host" 2>/dev/null
for record in "$out"/seat/*.wrec "$out"/host/*.wrec; do
    [ -f "$record" ] || continue
    "$py" -m watten_net.verify "$record"; node "$here/verify_cli.js" "$record"
done
