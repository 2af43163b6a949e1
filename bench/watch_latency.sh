#!/bin/bash
# Reload latency of --watch: write a new file, poll GET until it is 200; N runs; ms each.
B=${1:-bazel-bin/variants/full/apollod}; N=${2:-9}; W=${3:-}
D=$(mktemp -d); mkdir $D/root; echo a > $D/root/a.txt
$B --listen 127.0.0.1:18499 --root $D/root --watch $W >/dev/null 2>$D/err &
sleep 0.5
for i in $(seq $N); do
  t0=$(date +%s%N); echo $i > $D/root/n$i.txt
  until [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18499/n$i.txt)" = 200 ]; do :; done
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
  sleep 0.5
done
sleep 0.5; kill $(grep -o 'process [0-9]*' $D/err | tail -1 | cut -d' ' -f2); sleep 0.5; rm -rf $D
