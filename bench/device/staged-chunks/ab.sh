#!/bin/bash
cd /work/main/build-openmpi
LD_LIBRARY_PATH=$1 WEFT_DEVICE=emulated WEFT_STAGING_CHUNK_BYTES=4096 WEFT_WISDOM=none mpiexec --allow-run-as-root --oversubscribe -np 2 -x LD_LIBRARY_PATH \
  ./tools/bench/weft-bench allreduce --memory device --modes weft -b 64K -e 1M -f 4 -n 50 -w 10 --place out 2>&1 | grep -E "^ +[0-9]" | awk '{print $1, $5}' | tr '\n' ' '
echo
