#!/bin/bash
# usage: sweep.sh label  (env vars pass through)
for k in s v t; do for q in 2 3 4; do for d in f d; do echo -n "$1 "; ${LL:-/tmp/ll-driver} $k $q $d 10; done; done; done
