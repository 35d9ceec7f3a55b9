#!/usr/bin/env bash
# One Slurm array task = one slice of a simkit corpus (shards j with j % COUNT == TASK_ID).
#
#   sbatch --array=0-7 --cpus-per-task=8 --export=ALL,OUT=s3://bucket/packing-v1,N=100000 slurm-array.sh
#   sbatch --dependency=afterok:<array job id> --export=ALL,OUT=s3://bucket/packing-v1,SLICES=8 slurm-merge.sh
#
# OUT is an object-store URL (credentials and endpoint from the usual AWS_* variables) or a
# directory every node sees. Each task writes its own slice, OUT/slice-K; a task that dies (preempted,
# timed out) is resumed by running it again: finished shards are kept, the rest is produced again,
# byte for byte the same. Extra arguments go to `simkit generate` (e.g. --config, --seed).
#SBATCH --job-name=simkit-slice
#SBATCH --requeue
set -euo pipefail
: "${OUT:?set OUT to the corpus URL or shared directory, e.g. s3://bucket/packing-v1}"
: "${SLURM_ARRAY_TASK_ID:?run as a Slurm array task (or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT)}"
: "${SLURM_ARRAY_TASK_COUNT:?run as a Slurm array task}"
GENERATOR="${GENERATOR:-packing}"
N="${N:-100000}"

simkit generate "$GENERATOR" --n "$N" \
    --out "$OUT/slice-$SLURM_ARRAY_TASK_ID" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
    --workers "${SLURM_CPUS_PER_TASK:-1}" \
    --no-progress "$@"
