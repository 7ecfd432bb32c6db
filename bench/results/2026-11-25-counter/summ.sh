#!/bin/bash
for f in "$@"; do
  db=$(grep -o 'database oddswatch_bench_[0-9]*' $f | awk '{print $2}')
  locks=${f%.log}.locks
  lk=$(awk -v db=$db '$2==db && $3 ~ /^Lock/ {s+=$4} END {print s+0}' $locks)
  wal=$(awk -v db=$db '$2==db && $3 ~ /WAL/ {s+=$4} END {print s+0}' $locks)
  cpu=$(awk -v db=$db '$2==db && $3 ~ /^cpu/ {s+=$4} END {print s+0}' $locks)
  n=$(awk -v db=$db '$2==db {print $1}' $locks | sort -u | wc -l)
  printf "%s | %s | %s | %s | %s | %s | locks %s, WAL %s, cpu %s of %s samples\n" "$(basename $f)" "$(head -1 $f | cut -d' ' -f2,4)" \
   "$(grep -o 'end to end: .*' $f | sed 's/end to end: //')" "$(grep -o 'write: .*' $f)" "$(grep -o 'deliver: .*' $f)" \
   "$(grep -o 'machine [0-9.]* s of [0-9.]*' $f); $(grep -o 'CPU per firing: .*' $f)" $lk $wal $cpu $n
done
