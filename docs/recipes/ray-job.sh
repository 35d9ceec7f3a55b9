#!/usr/bin/env bash
# Generate a corpus on a Ray cluster without a shared disk: submitted as a Ray job, the run's driver
# plans the shards, each Ray task produces whole shards and writes them straight to OUT (an
# object-store URL), and the driver writes the manifest. A node lost mid-run costs only the shards it
# was producing: Ray runs those tasks again elsewhere (same bytes); if the job itself dies, submit it
# again and it resumes.
#
#   RAY_API_SERVER_ADDRESS=http://head:8265 OUT=s3://bucket/packing-v1 N=100000 ./ray-job.sh
#
# Every node needs simkit[cloud] installed and object-store credentials in its environment.
# Extra arguments go to `simkit generate` (e.g. --config, --seed, --episodes-per-shard).
set -euo pipefail
: "${RAY_API_SERVER_ADDRESS:?set it to the Ray dashboard of the cluster, e.g. http://head:8265}"
: "${OUT:?set OUT to the corpus URL, e.g. s3://bucket/packing-v1}"
GENERATOR="${GENERATOR:-packing}"
N="${N:-100000}"

ray job submit --address "$RAY_API_SERVER_ADDRESS" -- \
    simkit generate "$GENERATOR" --n "$N" --out "$OUT" --executor ray --no-progress "$@"
simkit validate "$OUT"
