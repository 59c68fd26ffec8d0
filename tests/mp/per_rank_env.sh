#!/bin/sh
# Runs a program with one environment variable set differently on rank 0 than on the others
# (MPI lets ranks see different environments; weft must not then choose apart).
#   per_rank_env.sh VAR VALUE_ON_RANK_0 VALUE_ON_OTHERS PROGRAM [ARGS...]
var=$1 first=$2 others=$3
shift 3
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
if [ "$rank" = 0 ]; then value=$first; else value=$others; fi
export "$var=$value"
exec "$@"
