"""Helper for training loops run by blox-cluster (standard library only).

    from blox_job import BloxJob
    job = BloxJob()                       # installs the preemption handler, says "started"
    state = job.load_checkpoint() or {"iter": 0}
    for it in range(state["iter"], total):
        if job.should_stop():             # preempted: save and exit
            job.save_checkpoint({"iter": it})
            job.exit_preempted(it)
        train_one_iteration()
        job.report(it + 1)
    job.report(total, done=True)

The launch contract (environment variables set by blox-cluster for every rank):
job_id, local_gpu_id, local_accessible_gpus, master_ip_address, world_size, dist_rank,
CUDA_VISIBLE_DEVICES, BLOX_RDZV_PORT (also MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE/LOCAL_RANK),
BLOX_CHECKPOINT_DIR, BLOX_RESUME, BLOX_ATTEMPT, BLOX_METRICS_FILE, BLOX_PREEMPT_SIGNAL,
BLOX_TOTAL_ITERATIONS and BLOX_ITERATION_TIME_S when known.
"""

import json
import os
import select
import signal
import sys
import time

#: Exit code of a job that stopped because it was preempted (128 + SIGTERM).
PREEMPTED_EXIT = 143


class BloxJob:
    """One rank's view of its launch."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.job_id = int(env.get("job_id", "0"))
        self.rank = int(env.get("dist_rank", "0"))
        self.world_size = int(env.get("world_size", "1"))
        self.local_gpu_id = env.get("local_gpu_id", "0")
        self.master = env.get("master_ip_address", "127.0.0.1")
        self.port = int(env.get("BLOX_RDZV_PORT", "0") or 0)
        self.attempt = int(env.get("BLOX_ATTEMPT", "0"))
        self.resume = env.get("BLOX_RESUME", "0") == "1"
        self.checkpoint_dir = env.get("BLOX_CHECKPOINT_DIR", ".")
        self.metrics_file = env.get("BLOX_METRICS_FILE")
        total = env.get("BLOX_TOTAL_ITERATIONS")
        self.total_iterations = int(total) if total else None
        it = env.get("BLOX_ITERATION_TIME_S")
        self.iteration_time_s = float(it) if it else None
        self._stop = False
        # The signal also wakes wait(): the handler's C part writes to this pipe.
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        signal.set_wakeup_fd(self._wake_w)
        name = env.get("BLOX_PREEMPT_SIGNAL", "SIGTERM")
        sig = getattr(signal, name, signal.SIGTERM)
        # The handler must be in place before "started" is reported: the server waits for it
        # before it sends a preemption signal.
        signal.signal(sig, self._on_signal)
        if sig != signal.SIGTERM:
            signal.signal(signal.SIGTERM, self._on_signal)
        self._write({"event": "started", "resume": self.resume})

    def _on_signal(self, signum, frame):
        self._stop = True

    def wait(self, seconds):
        """Sleep up to `seconds`, returning early (True) when the preemption signal arrives."""
        if self._stop:
            return True
        if seconds > 0:
            select.select([self._wake_r], [], [], seconds)
        return self._stop

    def should_stop(self):
        """True once the preemption signal has arrived."""
        return self._stop

    def _write(self, rec):
        if self.rank != 0 or not self.metrics_file:
            return
        rec = dict(rec, attempt=self.attempt, rank=self.rank, time=time.time())
        with open(self.metrics_file, "a") as f:
            f.write(json.dumps(rec) + "\n")

    def report(self, iteration, **extra):
        """Report total iterations done (rank 0 only; other ranks are ignored)."""
        self._write(dict(extra, iter=int(iteration)))

    def _ckpt_path(self):
        return os.path.join(self.checkpoint_dir, "checkpoint.json")

    def load_checkpoint(self):
        """The last saved state (a dict), or None."""
        try:
            with open(self._ckpt_path()) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def save_checkpoint(self, state):
        """Save a JSON-serialisable dict atomically (rank 0 only)."""
        if self.rank != 0:
            return
        os.makedirs(self.checkpoint_dir, exist_ok=True)
        tmp = self._ckpt_path() + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._ckpt_path())

    def exit_preempted(self, iteration):
        """Report and exit with PREEMPTED_EXIT after a checkpoint."""
        self._write({"event": "preempted", "iter": int(iteration)})
        sys.exit(PREEMPTED_EXIT)
