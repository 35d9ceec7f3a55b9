#!/usr/bin/env bash
# After every task of slurm-array.sh succeeded: join the SLICES slices OUT/slice-0 ... into OUT/corpus,
# then check it. (Listing the slices by number works for URLs, where a shell glob cannot.)
#SBATCH --job-name=simkit-merge
set -euo pipefail
: "${OUT:?set OUT as for slurm-array.sh}"
: "${SLICES:?set SLICES to the array size (SLURM_ARRAY_TASK_COUNT of the array job)}"

slices=()
for ((k = 0; k < SLICES; k++)); do slices+=("$OUT/slice-$k"); done
simkit merge "${slices[@]}" --out "$OUT/corpus"
simkit validate --strict "$OUT/corpus"
