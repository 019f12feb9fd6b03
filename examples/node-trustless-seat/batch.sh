#!/usr/bin/env bash
# several live matches in a row; summary per run
cd "$(dirname "$0")"
run() { name=$1; shift; timeout 900 env "${ENVV[@]}" ./run.sh /tmp/l2b-$name "$@" > /tmp/l2b-$name.out 2>&1;
  echo "== $name: $(grep -c 'verified ✓' /tmp/l2b-$name.out) verified-by-watten-verify; $(grep 'docs-l2 checker' /tmp/l2b-$name.out | grep -c ': verified') by mine; $(grep -c 'REFUSED' /tmp/l2b-$name/seat.log) refusals; $(grep -c 'SEALING' /tmp/l2b-$name/seat.log) sealed-by-me; $(grep -c 'sealed share of' /tmp/l2b-$name/seat.log) sealed-to-me; $(grep -c 'MASCHINE' /tmp/l2b-$name/seat.log) maschine; opens $(grep -o '"opens":[0-9]*' /tmp/l2b-$name/seat.log | tail -1); $(grep -h 'STOP' /tmp/l2b-$name/seat.log)"; }
ENVV=(SEAT_SEAL=1); run seal1; run seal2; run seal3
ENVV=(X=1); run p3 --players 3 --bots 2; run p4 --players 4 --bots 3; run tyrolean --rules tyrolean; run wurf --rules wurf; run p6 --players 6 --bots 5; run st4 --rules south-tyrolean --players 4 --bots 3
