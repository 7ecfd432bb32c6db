#!/usr/bin/env bash
# The quiet bench set, twice, with base (06aba5c, /tmp/window-base) engine and sync runs alternated.
set -u
OUT=$1; mkdir -p "$OUT"; cd /work/main
npm run build > "$OUT/build.txt" 2>&1
step() { echo "$(date -u +%H:%M:%S) $* load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/progress.txt"; }
for i in 1 2; do
  if [ $i = 1 ]; then order="base new"; else order="new base"; fi
  for side in $order; do
    dir=/work/main; [ $side = base ] && dir=/tmp/window-base
    step "run $i $side engine"; (cd $dir && npm run bench -- engine > "$OUT/engine-$side-$i.txt" 2>&1)
    step "run $i $side sync"; (cd $dir && npm run bench -- sync --events=3000 --runs=3 > "$OUT/sync-$side-$i.txt" 2>&1)
  done
  for b in "ingest" "start" "rest" "rest --only=creates --rules=1000 --databases=pglite,postgres" "delivery --seconds=30" "memory --minutes=0"; do
    name=$(echo "$b" | tr ' =,-' '____' | sed 's/__*/_/g')
    step "run $i $b"
    npm run bench -- $b > "$OUT/$name-$i.txt" 2>&1
  done
done
step done
