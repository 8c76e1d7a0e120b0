#!/bin/bash
# Stop what slurm-up.sh started: cancel jobs, then every daemon by its PID file (TERM, then
# KILL after 15 s).
scancel --user=root 2>/dev/null || true
for _ in $(seq 1 100); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
stop() {
  local pids=() f p
  for f in "$@"; do [ -f "$f" ] && pids+=("$(cat "$f")") && rm -f "$f"; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for _ in $(seq 1 150); do
    local alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0; sleep 0.1
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; true
}
stop /run/slurmd-n*.pid
stop /run/slurmctld.pid
stop /run/munge/munged.pid
echo "slurm-down: stopped"
