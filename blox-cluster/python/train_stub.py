"""A stub training program with a known duration (iterations x iteration time).

It honours the preemption signal (checkpoint, then exit 143), resumes from its checkpoint, and
reports every iteration through blox_job. Settings come from the launch environment
(BLOX_TOTAL_ITERATIONS, BLOX_ITERATION_TIME_S) or the command line:

    python3 train_stub.py [--iterations N] [--iteration-time SECONDS]

Each attempt appends one line to BLOX_CHECKPOINT_DIR/attempts.log: attempt, resume flag, the
iteration it started from, and the contract variables it saw (tests read it).
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blox_job import BloxJob  # noqa: E402


def main():
    job = BloxJob()
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=job.total_iterations or 100)
    p.add_argument("--iteration-time", type=float, default=job.iteration_time_s or 0.1)
    a = p.parse_args()
    state = job.load_checkpoint() if job.resume else None
    start = int(state["iter"]) if state else 0
    if job.rank == 0:
        os.makedirs(job.checkpoint_dir, exist_ok=True)
        keys = ["job_id", "local_gpu_id", "local_accessible_gpus", "master_ip_address",
                "world_size", "dist_rank", "CUDA_VISIBLE_DEVICES", "BLOX_RDZV_PORT", "BLOX_NODE"]
        with open(os.path.join(job.checkpoint_dir, "attempts.log"), "a") as f:
            f.write(json.dumps({"attempt": job.attempt, "resume": job.resume, "start": start,
                                "env": {k: os.environ.get(k) for k in keys}}) + "\n")
    it = start
    deadline = time.monotonic()
    while it < a.iterations:
        if job.should_stop():
            job.save_checkpoint({"iter": it})
            job.exit_preempted(it)
        # Sleep to an absolute schedule so the total time is iterations x iteration time.
        deadline += a.iteration_time
        delay = deadline - time.monotonic()
        if delay > 0:
            job.wait(delay)
        if job.should_stop():
            # The signal came during this iteration: it is lost, as a real one would be.
            job.save_checkpoint({"iter": it})
            job.exit_preempted(it)
        it += 1
        job.report(it)
    job.save_checkpoint({"iter": it, "done": True})
    job.report(it, event="done")


if __name__ == "__main__":
    main()
