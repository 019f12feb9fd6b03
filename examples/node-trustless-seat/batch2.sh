#!/usr/bin/env bash
cd "$(dirname "$0")"
run() { name=$1; shift; timeout 900 env "${ENVV[@]}" ./run.sh /tmp/l2c-$name "$@" > /tmp/l2c-$name.out 2>&1;
  echo "== $name: $(grep -c 'verified ✓' /tmp/l2c-$name.out) verified-by-watten-verify; $(grep 'docs-l2 checker' /tmp/l2c-$name.out | grep -c ': verified') by mine; $(grep -c 'REFUSED' /tmp/l2c-$name/seat.log) refusals; $(grep -c 'SEALING' /tmp/l2c-$name/seat.log) sealed-by-me; $(grep -c 'sealed share of' /tmp/l2c-$name/seat.log) sealed-to-me; $(grep -c 'MASCHINE' /tmp/l2c-$name/seat.log) maschine; opens $(grep -o '"opens":[0-9]*' /tmp/l2c-$name/seat.log | tail -1); $(grep -h 'STOP' /tmp/l2c-$name/seat.log)"; }
ENVV=(X=1); run p4a --players 4 --bots 3; run p4b --players 4 --bots 3 --rules south-tyrolean
ENVV=(SEAT_SEAL=1); run s4 --players 4 --bots 3; run s6 --players 6 --bots 5 --set target=5
