#!/bin/bash
# A/B alternated: rep1 base,branch; rep2 branch,base; ...
cd /tmp/counter-ab
run() { # name dir idx
  local name=$1 dir=$2 i=$3
  local log=/tmp/counter-ab/$i-$name.log
  echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > $log
  echo "select clock_timestamp()::time, datname, coalesce(wait_event_type,'cpu')||':'||coalesce(wait_event,''), count(*) from pg_stat_activity where datname like 'oddswatch_bench_%' and state='active' group by 1,2,3 \\watch 0.2" | psql -h 127.0.0.1 -U postgres -d postgres -X -q -A -t -F' ' > /tmp/counter-ab/$i-$name.locks 2>&1 &
  local sp=$!
  (cd $dir && timeout 400 npm run bench -- delivery --maxWorkers=0 --idleMoves=0 --baselineRequests=2000 --seconds=30) >> $log 2>&1
  kill $sp
  echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
}
n=${1:-2}
for r in $(seq 5 $((n+4))); do
  if [ $((r % 2)) = 1 ]; then run base /tmp/counter-base $r; run branch /work/wt/counter $r; else run branch /work/wt/counter $r; run base /tmp/counter-base $r; fi
done
echo ALLDONE > /tmp/counter-ab/done
