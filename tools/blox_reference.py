#!/usr/bin/env python3
"""Independent reference model (test oracle) of the Blox round-based simulator.

This is a literal, round-by-round re-implementation of the semantics written down in
/work/shared/BLOX-SEMANTICS.md (msr-fiddle/blox, `simulator_runner/simulator.py` driven by
`blox_examples/blox_new_flow_multi_run.py`, "Place" placement, AcceptAll or LoadBasedAccept
admission, FIFO / LAS / SRTF / Optimus / Tiresias).  It uses only the Python standard library
and CPython's own `random` module (MT19937), so the synthetic workload is bit-identical to
Blox's "pickle present" workload (section 10.5 of the semantics document).

It is deliberately simple and slow: every round is executed, every order is a stable
`sorted`, and no event skipping or other shortcut is taken.

Outputs
  stdout          one JSON line: avg_jct_s, avg_responsiveness_s, n_tracked,
                  preemptions_total, end_time_s, rounds
  --out-jobs      per-job CSV (one row per admitted job, ordered by blox id)
  --out-timeline  per-round cluster series CSV (las_scheduler.py sampling point)

"rounds" counts every round whose step 2 was executed, the final round included, i.e.
rounds = end_time_s / R + 1 (rounds are at t = 0, R, 2R, ..., end_time_s).
"""

import argparse
import csv
import json
import math
import random
import sys

# ---------------------------------------------------------------------------------------------
# Constants (BLOX-SEMANTICS.md section 15.1)
# ---------------------------------------------------------------------------------------------

STARVATION_THRESHOLD = 3_600_000  # s; job_priority 999 -> 1, permanently (section 6.2)
INITIAL_PRIORITY = 999
STARVED_PRIORITY = 1

# Optimus progress factor, artifact commit table, keyed by the load (section 7).
OPTIMUS_SPEED = {1.0: 5, 2.0: 3, 3.0: 1.4, 4.0: 1.2, 5.0: 1.1,
                 6.0: 1.0, 7.0: 1.0, 8.0: 1.0, 9.0: 1.0}

POLICIES = ("fifo", "las", "srtf", "optimus", "tiresias")


# ---------------------------------------------------------------------------------------------
# Workload (section 10)
# ---------------------------------------------------------------------------------------------

def gavel_like_duration(rng):
    """`get_gavel_like_iter`: two draws per duration (section 10.3)."""
    if rng.random() >= 0.8:
        return 60 * 10 ** rng.uniform(3, 4)
    else:
        return 60 * 10 ** rng.uniform(1.5, 3)


def make_durations(n_trace_jobs):
    """Durations d(0..N-1): draws 2j and 2j+1 of a seed-1 stream used only for durations."""
    rng = random.Random(1)
    return [gavel_like_duration(rng) for _ in range(n_trace_jobs)]


class ArrivalStream:
    """Poisson arrival stream, a fresh seed-1 stream per experiment (section 10.4)."""

    def __init__(self, load):
        self.rng = random.Random(1)
        self.load = load
        self.last_arrival = 0  # a(-1) = 0

    def next_arrival(self):
        rng = self.rng
        ia = math.ceil(((-math.log(1.0 - rng.random()) / self.load) * 60) * 60)
        rng.randint(0, 8)  # class draw, result discarded (must be made)
        self.last_arrival = self.last_arrival + ia
        return self.last_arrival


class SyntheticStream:
    """The trace-free branch (appendix, workload 2): one seed-1 stream draws, per job and in
    this order, the inter-arrival time, the Gavel-like duration, the GPU count and the
    discarded class draw."""

    def __init__(self, load):
        self.rng = random.Random(1)
        self.load = load
        self.last_arrival = 0

    def next_job(self):
        rng = self.rng
        ia = math.ceil(((-math.log(1.0 - rng.random()) / self.load) * 60) * 60)
        self.last_arrival = self.last_arrival + ia
        duration = gavel_like_duration(rng)
        u = rng.uniform(0, 1)
        if u >= 0.95:
            gpus = 8
        elif u >= 0.80:
            gpus = 4
        elif u >= 0.70:
            gpus = 2
        else:
            gpus = 1
        rng.randint(0, 8)  # class draw, result discarded
        return self.last_arrival, duration, gpus


class Workload:
    """The workload simulator's `GetJobs(t)` with its one-job look-ahead (section 2)."""

    def __init__(self, load, durations, custom_jobs=None, synthetic=False, multigpu_gpus=None):
        self.durations = durations
        self.n = len(durations)
        self.arrivals = ArrivalStream(load)
        self.custom_jobs = custom_jobs  # hidden testing hook: list of (arrival, duration)
        self.synthetic = SyntheticStream(load) if synthetic else None
        # appendix, workload 1: the kept trace entries' GPU counts, cycled (N = their number)
        self.multigpu_gpus = multigpu_gpus
        self.next_index = 0  # workload index of the next job to generate
        self.held = None     # the look-ahead job

    def generate_next_job(self):
        i = self.next_index
        if self.custom_jobs is not None:
            if i >= len(self.custom_jobs):
                return None
            arrival, duration, gpus = self.custom_jobs[i]
        elif self.synthetic is not None:
            arrival, duration, gpus = self.synthetic.next_job()
        else:
            arrival = self.arrivals.next_arrival()
            duration = self.durations[i % self.n]
            if self.multigpu_gpus is not None:
                gpus = self.multigpu_gpus[i % len(self.multigpu_gpus)]
            else:
                gpus = 1  # multigpu = False
        self.next_index += 1
        return {"index": i, "arrival": arrival, "duration": duration,
                "num_gpus": gpus, "class_id": i % 5}

    def get_jobs(self, t):
        out = []
        while True:
            if self.held is not None:
                j = self.held
            else:
                j = self.generate_next_job()
                if j is None:  # only with a finite custom job list
                    return out
            if j["arrival"] <= t:
                out.append(j)
                self.held = None
                continue
            self.held = j
            return out


# ---------------------------------------------------------------------------------------------
# Admission (section 9)
# ---------------------------------------------------------------------------------------------

class AcceptAll:
    def admit(self, new_jobs, job_table):
        return list(new_jobs)


class LoadBasedAccept:
    def __init__(self, factor, total_gpus):
        self.cap = factor * total_gpus  # f64
        self.queue = []                  # persistent FIFO overflow queue

    def admit(self, new_jobs, job_table):
        demand = 0
        for rec in job_table.values():
            demand += rec["num_GPUs"]
        self.queue.extend(new_jobs)
        admitted = []
        added = 0
        while demand + added <= self.cap and self.queue:
            j = self.queue.pop(0)
            added += j["num_gpus"]
            admitted.append(j)
        return admitted


# ---------------------------------------------------------------------------------------------
# Scheduling policies (section 7)
# ---------------------------------------------------------------------------------------------

def schedule(policy, job_table):
    """Return the table's blox ids, best first (stable sort over insertion order)."""
    items = list(job_table.items())
    if policy == "fifo":
        key = lambda kv: (kv[1]["job_priority"], kv[1]["submit_time"])
    elif policy in ("las", "tiresias"):
        key = lambda kv: (kv[1]["job_priority"], kv[1]["attained_service"])
    elif policy in ("srtf", "optimus"):
        # Srtf/Optimus write time_remaining into the record, then sort on it.
        for _, rec in items:
            rec["time_remaining"] = (rec["job_iteration_time"] * rec["job_total_iteration"]
                                     - rec["attained_service"])
        key = lambda kv: (kv[1]["job_priority"], kv[1]["time_remaining"])
    else:
        raise ValueError("unknown policy %r" % policy)
    return [jid for jid, _ in sorted(items, key=key)]


# ---------------------------------------------------------------------------------------------
# Cluster and placement "Place" (sections 3.1, 8)
# ---------------------------------------------------------------------------------------------

class Cluster:
    def __init__(self, nodes, gpus_per_node):
        self.nodes = nodes
        self.gpus_per_node = gpus_per_node
        self.total = nodes * gpus_per_node
        self.gpu_job = [None] * self.total  # GPU k -> blox id or None (IN_USE = not None)

    def node_of(self, gpu):
        return gpu // self.gpus_per_node

    def free_count(self):
        return sum(1 for j in self.gpu_job if j is None)


def free_map(gpu_job, gpus_per_node):
    """{node: [free GPU ids ascending]} over nodes with >= 1 free GPU, nodes ascending."""
    fm = {}
    for gpu, owner in enumerate(gpu_job):
        if owner is None:
            fm.setdefault(gpu // gpus_per_node, []).append(gpu)
    return fm


def scattered_fit(needed, fm):
    """Scattered fit with its overshoot (section 8.2)."""
    gpus = []
    for node in sorted(fm):
        gpus.extend(fm[node][:needed])
        if len(gpus) == needed:
            return gpus
    return None


def free_job_gpus(gpu_job, jid):
    for k, owner in enumerate(gpu_job):
        if owner == jid:
            gpu_job[k] = None


def place(job_table, order, cluster):
    """Blox `JobPlacement.place`, default branch (section 8.1).

    Writes is_running = False into victims of the LIVE table; works on a scratch GPU table.
    Returns (stop list, start dict blox id -> GPU list).
    """
    scratch = list(cluster.gpu_job)
    gpn = cluster.gpus_per_node
    stop = []
    start = {}
    for pos, jid in enumerate(order):
        rec = job_table[jid]
        if rec["is_running"]:
            continue                      # running jobs are never moved or resized
        needed = rec["num_GPUs"]
        gpus = scattered_fit(needed, free_map(scratch, gpn))
        if gpus is None:
            # victims: lowest priority first, never at or above pos
            for victim in reversed(order[pos + 1:]):
                vrec = job_table[victim]
                if not vrec["is_running"]:
                    continue
                stop.append(victim)
                vrec["is_running"] = False
                free_job_gpus(scratch, victim)
                gpus = scattered_fit(needed, free_map(scratch, gpn))
                if gpus is not None:
                    break
        if gpus is None:
            break  # strict order: no back-filling
        start[jid] = gpus
        for g in gpus:
            scratch[g] = jid
    return stop, start


# ---------------------------------------------------------------------------------------------
# The simulation (section 4)
# ---------------------------------------------------------------------------------------------

class Result:
    pass


def simulate(policy, load, admission, track_first, track_last, n_trace_jobs=12000,
             round_s=300, nodes=32, gpus_per_node=4, custom_jobs=None, max_rounds=None,
             trace_rounds=False, synthetic=False, multigpu_gpus=None):
    if policy not in POLICIES:
        raise ValueError("unknown policy %r" % policy)
    speed = None
    if policy == "optimus":
        if float(load) not in OPTIMUS_SPEED:
            raise ValueError("Optimus speed table has no entry for load %r "
                             "(only 1.0 .. 9.0)" % (load,))
        speed = OPTIMUS_SPEED[float(load)]

    R = round_s
    cluster = Cluster(nodes, gpus_per_node)
    if multigpu_gpus is not None:
        n_trace_jobs = len(multigpu_gpus)
    durations = make_durations(n_trace_jobs)
    workload = Workload(load, durations, custom_jobs, synthetic, multigpu_gpus)
    if admission[0] == "accept-all":
        adm = AcceptAll()
    else:
        adm = LoadBasedAccept(admission[1], cluster.total)

    tracked = set(range(track_first, track_last + 1))
    tracked_remaining = set(tracked)

    job_table = {}        # blox id -> record, insertion ordered
    all_jobs = {}         # blox id -> per-job output record (every admitted job)
    next_blox_id = 0
    preemptions = {}      # t -> len(stop)
    timeline = []
    t = 0
    rounds = 0
    t_final = None

    while True:
        # (0) terminate flag: handled by `break` below.
        # (1) machines registered in round 0: the cluster exists from the start.
        rounds += 1
        if max_rounds is not None and rounds > max_rounds:
            raise RuntimeError("exceeded --max-rounds=%d at t=%d" % (max_rounds, t))

        # (2) credit every job running at this moment; detect completions.
        iters = R / 1  # R / job_iteration_time = 300.0
        finished_now = []
        for jid, rec in job_table.items():
            if not rec["is_running"]:
                continue
            first_credit = not rec["previously_launched"]
            rec["previously_launched"] = True
            if speed is not None:
                progress = iters * speed + rec["job_executed_iteration"]
            else:
                progress = rec["job_executed_iteration"] + iters
            rec["job_executed_iteration"] = progress
            rec["attained_service"] += R
            if first_credit:
                all_jobs[jid]["responded"] = t
            if progress >= rec["job_total_iteration"]:
                finished_now.append(jid)
        for jid in finished_now:
            all_jobs[jid]["completion"] = t
            free_job_gpus(cluster.gpu_job, jid)
            del job_table[jid]
            tracked_remaining.discard(jid)
        if not tracked_remaining:
            # Outputs are written here, inside step 2 of the final round.  Steps 3-10 of
            # this round affect no output, so they are not executed.
            t_final = t
            break

        # (3) arrivals <= t
        new = workload.get_jobs(t)
        # (4) admission
        admitted = adm.admit(new, job_table)
        # (5) blox ids in admission order
        for j in admitted:
            bid = next_blox_id
            next_blox_id += 1
            job_table[bid] = {
                "index": j["index"],
                "submit_time": j["arrival"],
                "job_arrival_time": j["arrival"],
                "job_iteration_time": 1,
                "job_total_iteration": j["duration"],
                "job_executed_iteration": 0,
                "num_GPUs": j["num_gpus"],
                "job_class_id": j["class_id"],
                "attained_service": 0,
                "time_since_scheduled": 0,
                "job_priority": INITIAL_PRIORITY,
                "is_running": False,
                "previously_launched": False,
            }
            all_jobs[bid] = {"arrival": j["arrival"], "duration": j["duration"],
                             "first_start": None, "responded": None,
                             "completion": None, "preemptions": 0}
        # (6) scheduling
        order = schedule(policy, job_table)
        # (7) placement
        stop, start = place(job_table, order, cluster)
        # (8) preemptions of this round
        preemptions[t] = len(stop)
        # las_scheduler.py cluster sample: after placement, before execution.
        n_running = 0
        n_queue = 0
        demand = 0
        for rec in job_table.values():
            demand += rec["num_GPUs"]
            if rec["is_running"]:
                n_running += 1
            else:
                n_queue += 1
        timeline.append((t, n_queue, n_running, cluster.free_count(), demand, len(stop)))
        if trace_rounds:
            print("t=%d new=%s admitted=%s order=%s stop=%s start=%s" % (
                t, [j["index"] for j in new], [j["index"] for j in admitted], order, stop,
                start), file=sys.stderr)
        # (9) stop, then start
        for jid in stop:
            rec = job_table[jid]
            rec["is_running"] = False
            rec["suspended"] = 1
            free_job_gpus(cluster.gpu_job, jid)
            all_jobs[jid]["preemptions"] += 1
        for jid, gpus in start.items():
            rec = job_table[jid]
            rec["is_running"] = True
            for g in gpus:
                assert cluster.gpu_job[g] is None, "GPU %d given twice" % g
                cluster.gpu_job[g] = jid
            if all_jobs[jid]["first_start"] is None:
                all_jobs[jid]["first_start"] = t
        # starvation counters, for every job in the table
        stop_set = set(stop)
        for jid, rec in job_table.items():
            if jid in stop_set or jid in start or rec["is_running"]:
                rec["time_since_scheduled"] = 0
            else:
                rec["time_since_scheduled"] += R
                if rec["time_since_scheduled"] >= STARVATION_THRESHOLD:
                    rec["job_priority"] = STARVED_PRIORITY
        # (10)
        t += R

    res = Result()
    res.t_final = t_final
    res.rounds = rounds
    res.all_jobs = all_jobs
    res.timeline = timeline
    res.preemptions = preemptions
    jcts = [all_jobs[i]["completion"] - all_jobs[i]["arrival"] for i in range(track_first, track_last + 1)]
    resp = [all_jobs[i]["responded"] - all_jobs[i]["arrival"] for i in range(track_first, track_last + 1)]
    res.avg_jct = sum(jcts) / len(jcts)
    res.avg_resp = sum(resp) / len(resp)
    res.n_tracked = len(jcts)
    res.preemptions_total = sum(v for k, v in preemptions.items() if k < t_final)
    return res


# ---------------------------------------------------------------------------------------------
# Self-test (section 15.2)
# ---------------------------------------------------------------------------------------------

def self_test():
    ok = True

    def check(name, got, want):
        nonlocal ok
        good = got == want
        ok = ok and good
        print("%s %s: got %r, want %r" % ("ok  " if good else "FAIL", name, got, want))

    r = random.Random(1)
    check("first random() outputs", [r.random() for _ in range(3)],
          [0.13436424411240122, 0.8474337369372327, 0.763774618976614])
    random.seed(1)  # the global stream, as Blox uses it
    check("global seed(1) random()", random.random(), 0.13436424411240122)
    d = make_durations(12000)
    check("durations 0-4", d[:5], [35424.3471980879, 4578.832840173429, 8961.647300188555,
                                   28922.529791391702, 2092.533720166135])
    check("duration 3000", d[3000], 13863.779955709033)
    check("duration 4000", d[4000], 447003.8977034927)
    wanted = {1: ([520, 1581, 6734, 10530, 10885], 10585199, 14093589),
              4: ([130, 396, 1685, 2634, 2723], 2647429, 3524904),
              8: ([65, 198, 843, 1318, 1363], 1324466, 1763449)}
    for load, (first5, a3000, a4000) in wanted.items():
        s = ArrivalStream(float(load))
        arr = [s.next_arrival() for _ in range(4001)]
        check("arrivals load %d jobs 0-4" % load, arr[:5], first5)
        check("arrival load %d job 3000" % load, arr[3000], a3000)
        check("arrival load %d job 4000" % load, arr[4000], a4000)
    # job 12000 repeats duration 0 (N = 12000)
    w = Workload(8.0, d)
    jobs = w.get_jobs(5_343_044)
    check("load 8: job 12000 arrival", jobs[12000]["arrival"], 5343044)
    check("load 8: d(12000) == d(0)", jobs[12000]["duration"], 35424.3471980879)
    # worked example of section 4.2: a = 1000, service 1000, uncontended
    res = simulate("fifo", 1.0, ("accept-all",), 0, 0, custom_jobs=[(1000, 1000.0, 1)])
    j = res.all_jobs[0]
    check("worked example (first_start, responded, completion)",
          (j["first_start"], j["responded"], j["completion"]), (1200, 1500, 2400))
    check("worked example JCT / responsiveness", (res.avg_jct, res.avg_resp), (1400.0, 500.0))
    # LoadBased overshoot by one job: 1-GPU jobs, table reaches floor(cap) + 1
    for factor, want in ((1.0, 129), (1.2, 154), (1.4, 180), (1.5, 193)):
        a = LoadBasedAccept(factor, 128)
        table = {}
        got = a.admit([{"num_gpus": 1}] * 300, table)
        check("load-based %.1fx admits" % factor, len(got), want)
    # scattered fit overshoot
    check("scattered fit overshoot", scattered_fit(4, {0: [0, 1], 1: [4, 5, 6, 7]}), None)
    check("scattered fit 3 over 2 nodes", scattered_fit(3, {0: [2, 3], 1: [4, 5, 6, 7]}), None)
    check("scattered fit 2 over 2 nodes, overshoot", scattered_fit(2, {0: [3], 1: [4, 5, 6, 7]}),
          None)
    check("scattered fit 2 over 2 nodes", scattered_fit(2, {0: [3], 1: [7]}), [3, 7])
    check("scattered fit 1 GPU", scattered_fit(1, {1: [5, 6], 3: [12]}), [5])
    print("self-test", "PASSED" if ok else "FAILED")
    return ok


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

def parse_track(s):
    try:
        a, b = s.split("..")
        a, b = int(a), int(b)
    except ValueError:
        raise argparse.ArgumentTypeError("expected FIRST..LAST, e.g. 3000..4000")
    if a < 0 or b < a:
        raise argparse.ArgumentTypeError("need 0 <= FIRST <= LAST")
    return a, b


def parse_admission(s):
    if s == "accept-all":
        return ("accept-all",)
    if s.startswith("load-based:"):
        try:
            f = float(s[len("load-based:"):])
        except ValueError:
            raise argparse.ArgumentTypeError("load-based:FACTOR needs a number, e.g. 1.2")
        return ("load-based", f)
    raise argparse.ArgumentTypeError("expected accept-all or load-based:FACTOR")


def parse_custom_jobs(s):
    """Hidden testing aid: "ARRIVAL:DURATION[:GPUS],..." replaces the synthetic workload."""
    jobs = []
    for part in s.split(","):
        f = part.split(":")
        jobs.append((int(f[0]), float(f[1]), int(f[2]) if len(f) > 2 else 1))
    return jobs


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Reference model (test oracle) of the Blox round-based simulator, "
                    "following /work/shared/BLOX-SEMANTICS.md literally. Prints one JSON "
                    "line: avg_jct_s, avg_responsiveness_s, n_tracked, preemptions_total, "
                    "end_time_s (the final round's t) and rounds (rounds executed, the "
                    "final round included: end_time_s / round + 1).")
    p.add_argument("--policy", choices=POLICIES, help="scheduling policy")
    p.add_argument("--load", type=float, help="arrival rate in jobs/hour (Optimus: 1..9)")
    p.add_argument("--admission", type=parse_admission, default=("accept-all",),
                   metavar="accept-all|load-based:FACTOR",
                   help="admission policy (default accept-all)")
    p.add_argument("--track", type=parse_track, default=(3000, 4000), metavar="FIRST..LAST",
                   help="tracked blox ids, inclusive (default 3000..4000)")
    p.add_argument("--trace-jobs", type=int, default=12000, metavar="N",
                   help="N, number of surviving trace jobs; durations repeat mod N "
                        "(default 12000)")
    p.add_argument("--round", type=int, default=300, metavar="SECONDS",
                   help="round length R (default 300)")
    p.add_argument("--nodes", type=int, default=32, help="number of nodes (default 32)")
    p.add_argument("--gpus-per-node", type=int, default=4, help="GPUs per node (default 4)")
    p.add_argument("--out-jobs", metavar="FILE.csv",
                   help="write per-job CSV: job_id,arrival_s,duration_s,first_start_s,"
                        "responded_s,completion_s,preemptions")
    p.add_argument("--out-timeline", metavar="FILE.csv",
                   help="write per-round CSV: time_s,jobs_in_queue,jobs_running,free_gpus,"
                        "gpu_demand,preemptions (sampled after placement, before execution; "
                        "no row for the final round)")
    p.add_argument("--self-test", action="store_true",
                   help="check the RNG values of section 15.2 and a few small cases, then exit")
    # hidden testing aids
    p.add_argument("--workload", choices=("default", "synthetic"), default="default",
                   help="default: Blox's generator (section 10); synthetic: the trace-free "
                        "multi-GPU branch (appendix, workload 2)")
    p.add_argument("--multigpu-gpus", metavar="G,G,...",
                   help="the multigpu=True trace workload (appendix, workload 1): the kept "
                        "trace entries' GPU counts in file order (N = their number)")
    p.add_argument("--custom-jobs", type=parse_custom_jobs, help=argparse.SUPPRESS)
    p.add_argument("--max-rounds", type=int, help=argparse.SUPPRESS)
    p.add_argument("--trace-rounds", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.self_test:
        return 0 if self_test() else 1
    if args.policy is None or args.load is None:
        p.error("--policy and --load are required (or use --self-test)")
    if not args.load > 0:
        p.error("--load must be positive")

    first, last = args.track
    if args.custom_jobs is not None and last >= len(args.custom_jobs):
        p.error("--track reaches beyond the --custom-jobs list")
    if args.trace_jobs < 1 or args.round < 1 or args.nodes < 1 or args.gpus_per_node < 1:
        p.error("--trace-jobs, --round, --nodes and --gpus-per-node must be >= 1")
    try:
        res = simulate(args.policy, args.load, args.admission, first, last,
                       n_trace_jobs=args.trace_jobs, round_s=args.round, nodes=args.nodes,
                       gpus_per_node=args.gpus_per_node, custom_jobs=args.custom_jobs,
                       max_rounds=args.max_rounds,
                       trace_rounds=args.trace_rounds,
                       synthetic=args.workload == "synthetic",
                       multigpu_gpus=None if args.multigpu_gpus is None
                       else [int(g) for g in args.multigpu_gpus.split(",")])
    except (ValueError, RuntimeError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2

    if args.out_jobs:
        with open(args.out_jobs, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["job_id", "arrival_s", "duration_s", "first_start_s", "responded_s",
                        "completion_s", "preemptions"])
            for bid in sorted(res.all_jobs):
                j = res.all_jobs[bid]
                opt = lambda v: "" if v is None else str(v)
                w.writerow([bid, j["arrival"], repr(j["duration"]), opt(j["first_start"]),
                            opt(j["responded"]), opt(j["completion"]), j["preemptions"]])
    if args.out_timeline:
        with open(args.out_timeline, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["time_s", "jobs_in_queue", "jobs_running", "free_gpus", "gpu_demand",
                        "preemptions"])
            for row in res.timeline:
                w.writerow(row)

    print(json.dumps({"avg_jct_s": res.avg_jct, "avg_responsiveness_s": res.avg_resp,
                      "n_tracked": res.n_tracked, "preemptions_total": res.preemptions_total,
                      "end_time_s": res.t_final, "rounds": res.rounds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
