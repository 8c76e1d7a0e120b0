//! The round loop shared by the stock placements: a plan of free GPUs and host
//! resources, elastic resizing, preemption with rollback, optional back-filling. Each placement
//! supplies only its fit ([`Fit`]).

use blox_core::{
    Cluster, Ctx, Decisions, FreeGpus, GpuId, GpuSet, Job, JobTable, NodeId, Schedule,
};

/// Relative slack when comparing host resources, so that sums of shares that should fill a node
/// exactly are not refused by rounding.
const EPS: f64 = 1e-9;

/// Options of the shared round loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopOptions {
    /// Preempt running jobs below a job that does not fit.
    pub(crate) preempt: bool,
    /// Keep walking the schedule after a job that cannot be placed.
    pub(crate) backfill: bool,
    /// Relaunch a victim of this round on its old GPUs when they are still free (the engine then
    /// sees no change). Off for `Scattered`, which keeps Blox's choice of the lowest free GPUs.
    pub(crate) reuse_victim_gpus: bool,
}

/// The plan of a round: GPUs (blox-core's free map) and, when tracked, host CPU and memory per
/// node.
///
/// **Host accounting.** A job's CPU and memory demand ([`blox_core::JobSpec::cpus`],
/// [`blox_core::JobSpec::mem_gb`]) is shared equally among the GPUs it requested: a job holding
/// `g` GPUs on a node uses `g × cpus / n_gpus` cores there (the same for memory; an elastic job
/// on more or fewer GPUs than it requested scales with the GPUs it holds). A job with no demand
/// uses the node's GPU-proportional share, `g × node.cpus / node.gpus` (Synergy's baseline
/// "fair share").
#[derive(Clone)]
pub(crate) struct Plan<'a> {
    pub(crate) gpus: FreeGpus<'a>,
    pub(crate) cluster: &'a Cluster,
    pub(crate) host: bool,
    pub(crate) cpu_free: Vec<f64>,
    pub(crate) mem_free: Vec<f64>,
}

impl<'a> Plan<'a> {
    pub(crate) fn new(ctx: &Ctx<'a>, host: bool) -> Self {
        let cluster = ctx.cluster;
        let mut plan = Plan {
            gpus: cluster.free_map(),
            cluster,
            host,
            cpu_free: Vec::new(),
            mem_free: Vec::new(),
        };
        if host {
            plan.cpu_free = cluster
                .spec()
                .nodes
                .iter()
                .map(|n| f64::from(n.cpus))
                .collect();
            plan.mem_free = cluster.spec().nodes.iter().map(|n| n.mem_gb).collect();
            for job in ctx.jobs.iter().filter(|j| j.is_running()) {
                plan.charge(job, &job.gpus, -1.0);
            }
        }
        plan
    }

    /// Per-GPU CPU and memory demand of `job` on `node`.
    pub(crate) fn per_gpu(&self, job: &Job, node: NodeId) -> (f64, f64) {
        let spec = &self.cluster.spec().nodes[node.index()];
        let share = |own: Option<f64>, total: f64| match own {
            Some(x) if job.spec.n_gpus > 0 => x.max(0.0) / f64::from(job.spec.n_gpus),
            _ => total / f64::from(spec.gpus.max(1)),
        };
        (
            share(job.spec.cpus, f64::from(spec.cpus)),
            share(job.spec.mem_gb, spec.mem_gb),
        )
    }

    /// Add `sign` × the job's host use on these GPUs to the free amounts.
    fn charge(&mut self, job: &Job, gpus: &[GpuId], sign: f64) {
        for &g in gpus {
            let node = self.cluster.node_of(g);
            let (c, m) = self.per_gpu(job, node);
            self.cpu_free[node.index()] += sign * c;
            self.mem_free[node.index()] += sign * m;
        }
    }

    /// How many more GPUs of `job` node `node` can take, given its free GPUs and (when
    /// tracked) its free CPU and memory.
    pub(crate) fn capacity(&self, job: &Job, node: NodeId) -> u32 {
        let free = self.gpus.free_on_node(node);
        if !self.host || free == 0 {
            return free;
        }
        let (c, m) = self.per_gpu(job, node);
        let fit = |avail: f64, per: f64| -> u32 {
            if per <= 0.0 {
                return u32::MAX;
            }
            let k = (avail / per) * (1.0 + EPS) + EPS;
            if k <= 0.0 {
                0
            } else {
                k.floor().min(f64::from(u32::MAX)) as u32
            }
        };
        free.min(fit(self.cpu_free[node.index()], c))
            .min(fit(self.mem_free[node.index()], m))
    }

    pub(crate) fn occupy(&mut self, job: &Job, gpus: &[GpuId]) {
        self.gpus.occupy(gpus);
        if self.host {
            self.charge(job, gpus, -1.0);
        }
    }

    pub(crate) fn release(&mut self, job: &Job, gpus: &[GpuId]) {
        self.gpus.release(gpus);
        if self.host {
            self.charge(job, gpus, 1.0);
        }
    }
}

/// A placement's choice of GPUs on the plan.
pub(crate) trait Fit {
    /// Whether the plan must track host CPU and memory.
    fn host(&self) -> bool {
        false
    }

    /// Called once per round, before any fit, with the plan as the round starts.
    fn begin(&mut self, _ctx: &Ctx<'_>, _plan: &Plan<'_>) {}

    /// Choose `need` GPUs for `job` on the plan (which it must not change); false when it
    /// cannot.
    fn fit(&mut self, plan: &Plan<'_>, job: &Job, need: u32, out: &mut GpuSet) -> bool;

    /// Choose `extra` more GPUs for a running `job` that holds `have` (occupied in the plan).
    /// By default: free GPUs on the nodes it already uses first (ascending), then the fit.
    fn extend(
        &mut self,
        plan: &Plan<'_>,
        job: &Job,
        have: &[GpuId],
        extra: u32,
        out: &mut GpuSet,
    ) -> bool {
        out.clear();
        let mut nodes: Vec<NodeId> = have.iter().map(|&g| plan.cluster.node_of(g)).collect();
        nodes.sort_unstable();
        nodes.dedup();
        for node in nodes {
            let room = plan.capacity(job, node) as usize;
            let want = extra as usize - out.len();
            out.extend(plan.gpus.free_of_node(node).take(room.min(want)));
            if out.len() == extra as usize {
                return true;
            }
        }
        // Not enough next to it: the rest goes where the fit puts a job of that size, on a plan
        // where the GPUs chosen above are taken.
        if out.is_empty() {
            return self.fit(plan, job, extra, out);
        }
        let chosen = out.clone();
        let mut scratch = plan.clone();
        scratch.occupy(job, &chosen);
        self.occupied(&chosen);
        let mut rest = GpuSet::new();
        let ok = self.fit(&scratch, job, extra - chosen.len() as u32, &mut rest);
        self.released(&chosen);
        out.extend(rest);
        ok
    }

    /// The plan gave these GPUs away (keep derived counts in step).
    fn occupied(&mut self, _gpus: &[GpuId]) {}

    /// The plan freed these GPUs.
    fn released(&mut self, _gpus: &[GpuId]) {}
}

/// [`Scratch::flags`]: stopped this round and not (yet) restarted.
const STOPPED: u8 = 1;
/// [`Scratch::flags`]: placed (started or resized) this round; never a victim.
const PLACED: u8 = 2;

impl Scratch {
    #[inline]
    fn stopped(&self, slot: usize) -> bool {
        self.flags[slot] & STOPPED != 0
    }

    #[inline]
    fn placed(&self, slot: usize) -> bool {
        self.flags[slot] & PLACED != 0
    }

    #[inline]
    fn set_stopped(&mut self, slot: usize, on: bool) {
        if on {
            self.flags[slot] |= STOPPED;
            self.flagged.push(slot);
        } else {
            self.flags[slot] &= !STOPPED;
        }
    }

    #[inline]
    fn set_placed(&mut self, slot: usize) {
        self.flags[slot] |= PLACED;
        self.flagged.push(slot);
    }

    /// Flags for a table of `slots` slots, all clear.
    fn begin(&mut self, slots: usize) {
        if self.flags.len() < slots {
            self.flags.resize(slots, 0);
        }
    }

    /// Clear the flags set this round (so the next round does not clear one per job).
    fn end(&mut self) {
        for &slot in &self.flagged {
            self.flags[slot] = 0;
        }
        self.flagged.clear();
    }
}

/// Reusable buffers of the shared loop.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// By table slot: [`STOPPED`] this round and not (yet) restarted, [`PLACED`] (started or
    /// resized) this round, never a victim. All clear between rounds.
    flags: Vec<u8>,
    /// The slots whose flags were set this round.
    flagged: Vec<usize>,
    victims: Vec<usize>,
    gpus: GpuSet,
}

fn occupy<F: Fit + ?Sized>(plan: &mut Plan<'_>, fit: &mut F, job: &Job, gpus: &[GpuId]) {
    plan.occupy(job, gpus);
    fit.occupied(gpus);
}

fn release<F: Fit + ?Sized>(plan: &mut Plan<'_>, fit: &mut F, job: &Job, gpus: &[GpuId]) {
    plan.release(job, gpus);
    fit.released(gpus);
}

/// A placement that is the shared round loop over one [`Fit`], with the loop's options and
/// buffers: what `FirstFit`, `Consolidated`, `TopologyAware` and `ResourceAware` are (each
/// with its own fit). Preemption is on, back-filling off, and a victim of the round is
/// relaunched on its old GPUs when they are still free.
#[derive(Clone, Debug)]
pub(crate) struct RoundLoop<F> {
    /// The fit that chooses a job's GPUs.
    pub(crate) fit: F,
    opts: LoopOptions,
    scratch: Scratch,
}

impl<F: Fit> RoundLoop<F> {
    /// The round loop over `fit`, with the default options.
    pub(crate) fn new(fit: F) -> Self {
        RoundLoop {
            fit,
            opts: LoopOptions {
                preempt: true,
                backfill: false,
                reuse_victim_gpus: true,
            },
            scratch: Scratch::default(),
        }
    }

    /// Preempt lower jobs when a job does not fit.
    pub(crate) fn set_preemption(&mut self, on: bool) {
        self.opts.preempt = on;
    }

    /// Keep walking the schedule past a job that cannot be placed.
    pub(crate) fn set_backfill(&mut self, on: bool) {
        self.opts.backfill = on;
    }

    /// One round: [`place_round`].
    pub(crate) fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        place_round(
            &mut self.fit,
            self.opts,
            &mut self.scratch,
            ctx,
            schedule,
            out,
        );
    }
}

/// What the victim search is trying to make room for.
#[derive(Clone, Copy)]
enum Want<'g> {
    Fresh(u32),
    Extend(&'g [GpuId], u32),
}

/// The shared round loop (see the crate docs, "the shared round loop").
///
/// For each schedule entry, in order:
/// - a running rigid job, or a running elastic job whose count did not change, stays as it is;
/// - a running elastic job whose count changed is resized: to 0, it stops; smaller, it stops
///   and restarts on the first GPUs of its current set (rank order); larger, it keeps its GPUs
///   and gets more ([`Fit::extend`]), preempting lower jobs if needed; if that fails it keeps
///   running as it was and counts as a job that could not be placed;
/// - a waiting job (or a victim of this round) gets GPUs from the fit; if none fit and
///   preemption is on, running jobs strictly below it are stopped from the bottom of the
///   schedule up, one at a time, re-trying the fit after each; if it still does not fit, the
///   victims are restored (rollback);
/// - a job that cannot be placed ends the walk, unless back-filling is on.
///
/// An entry with a GPU type ([`blox_core::Allocation::gpu_type`], on a cluster of several
/// types) is placed with the plan restricted to that type ([`blox_core::FreeGpus::restrict`]),
/// and only jobs holding GPUs of that type are candidate victims; a running job on another type
/// is moved (stopped and started on the type) when the fit, with preemption if on, finds room,
/// and otherwise keeps running where it is.
///
/// The victim search keeps a cursor across the round: entries below it are never candidates
/// again (a victim stays stopped or restarted, a placed job is not a victim), so the whole round
/// visits each entry at most once as a candidate, plus the victims restored by rollbacks.
pub(crate) fn place_round<F: Fit + ?Sized>(
    fit: &mut F,
    opts: LoopOptions,
    s: &mut Scratch,
    ctx: &Ctx<'_>,
    schedule: &Schedule,
    out: &mut Decisions,
) {
    let jobs = ctx.jobs;
    let mut plan = Plan::new(ctx, fit.host());
    fit.begin(ctx, &plan);
    let entries = &schedule.entries;
    s.begin(jobs.slot_bound());
    // Entries at or after `cursor` are not candidate victims.
    let mut cursor = entries.len();
    let several_types = ctx.cluster.n_gpu_types() > 1;

    // Schedules mostly list jobs in id order: each job is looked up from the previous one's
    // slot on.
    let mut next_slot = 0;
    for (pos, entry) in entries.iter().enumerate() {
        let Some(idx) = jobs.slot_near(entry.job, next_slot) else {
            continue;
        };
        next_slot = idx + 1;
        let flags = s.flags[idx];
        if flags & PLACED != 0 {
            continue;
        }
        let need = entry.n_gpus;
        // A GPU type matters only on a cluster that has several.
        let ty = entry.gpu_type.filter(|_| several_types);
        // A running rigid job, or one whose count did not change, stays as it is: decided from
        // the job's row, without reading the job.
        let held = jobs.row(idx).held;
        if held > 0 && flags & STOPPED == 0 && ty.is_none() && held == need {
            continue;
        }
        let job = jobs.at(idx);
        plan.gpus.restrict(ty);
        let running = job.is_running() && !s.stopped(idx);
        // On the wrong GPU type: stop it and place it like a waiting job below; if that fails
        // it keeps running where it is.
        let migrate = running
            && need > 0
            && ty.is_some_and(|t| job.gpus.iter().any(|&g| ctx.cluster.gpu_type(g) != t));
        if migrate {
            s.set_stopped(idx, true);
            release(&mut plan, fit, job, &job.gpus);
        }
        if running && !migrate {
            let have = job.gpus.len() as u32;
            if need == have || !job.spec.elastic {
                continue;
            }
            s.set_placed(idx);
            if need < have {
                // Shrink (or stop at 0): keep the first GPUs of its rank order.
                out.stop.push(job.id);
                release(&mut plan, fit, job, &job.gpus[need as usize..]);
                if need > 0 {
                    out.start(job.id, &job.gpus[..need as usize]);
                }
                continue;
            }
            let extra = need - have;
            let mut gpus = std::mem::take(&mut s.gpus);
            let ok = make_room(
                fit,
                &mut plan,
                s,
                &mut cursor,
                jobs,
                entries,
                pos,
                job,
                Want::Extend(&job.gpus, extra),
                opts,
                &mut gpus,
                out,
            );
            if ok {
                out.stop.push(job.id);
                occupy(&mut plan, fit, job, &gpus);
                let mut all = job.gpus.clone();
                all.extend_from_slice(&gpus);
                out.start(job.id, &all);
                s.gpus = gpus;
                continue;
            }
            s.gpus = gpus;
            if opts.backfill {
                continue;
            }
            break;
        }
        if need == 0 {
            continue;
        }
        let mut gpus = std::mem::take(&mut s.gpus);
        gpus.clear();
        // A victim of this round whose GPUs are still free gets them back: no change at all.
        let reuse = opts.reuse_victim_gpus
            && s.stopped(idx)
            && job.gpus.len() == need as usize
            && job.gpus.iter().all(|&g| plan.gpus.is_free(g))
            && (!plan.host || host_fits(&plan, job, &job.gpus));
        let ok = if reuse {
            gpus.extend_from_slice(&job.gpus);
            true
        } else {
            make_room(
                fit,
                &mut plan,
                s,
                &mut cursor,
                jobs,
                entries,
                pos,
                job,
                Want::Fresh(need),
                opts,
                &mut gpus,
                out,
            )
        };
        if ok {
            if migrate {
                out.stop.push(job.id);
            }
            occupy(&mut plan, fit, job, &gpus);
            out.start(job.id, &gpus);
            s.set_stopped(idx, false);
            s.set_placed(idx);
            s.gpus = gpus;
            continue;
        }
        s.gpus = gpus;
        if migrate {
            // No room on its type: it keeps running as it was.
            occupy(&mut plan, fit, job, &job.gpus);
            s.set_stopped(idx, false);
            s.set_placed(idx);
            continue;
        }
        if !opts.backfill {
            break;
        }
    }
    plan.gpus.restrict(None);
    s.end();
}

/// Whether `job`'s host share on these GPUs fits the plan.
fn host_fits(plan: &Plan<'_>, job: &Job, gpus: &[GpuId]) -> bool {
    let mut per_node: Vec<(NodeId, u32)> = Vec::new();
    for &g in gpus {
        let n = plan.cluster.node_of(g);
        match per_node.iter_mut().find(|(m, _)| *m == n) {
            Some((_, c)) => *c += 1,
            None => per_node.push((n, 1)),
        }
    }
    // Capacity counts free GPUs too, which include these GPUs themselves.
    per_node.iter().all(|&(n, c)| plan.capacity(job, n) >= c)
}

/// Fit, and when it fails and preemption is on, stop jobs below `pos` from the bottom until it
/// fits; roll back when it never does. Victims are appended to `out.stop` only on success.
#[allow(clippy::too_many_arguments)]
fn make_room<F: Fit + ?Sized>(
    fit: &mut F,
    plan: &mut Plan<'_>,
    s: &mut Scratch,
    cursor: &mut usize,
    jobs: &JobTable,
    entries: &[blox_core::Allocation],
    pos: usize,
    job: &Job,
    want: Want<'_>,
    opts: LoopOptions,
    gpus: &mut GpuSet,
    out: &mut Decisions,
) -> bool {
    let try_fit = |fit: &mut F, plan: &Plan<'_>, gpus: &mut GpuSet| match want {
        Want::Fresh(n) => fit.fit(plan, job, n, gpus),
        Want::Extend(have, n) => fit.extend(plan, job, have, n, gpus),
    };
    if try_fit(fit, plan, gpus) {
        return true;
    }
    if !opts.preempt {
        return false;
    }
    s.victims.clear();
    let saved = *cursor;
    let mut c = (*cursor).min(entries.len());
    let mut ok = false;
    while c > pos + 1 {
        c -= 1;
        let Some(vidx) = jobs.slot(entries[c].job) else {
            continue;
        };
        if !jobs.row(vidx).is_running() || s.stopped(vidx) || s.placed(vidx) {
            continue;
        }
        let victim = jobs.at(vidx);
        // Under a GPU-type restriction, stopping a job that holds none of that type frees
        // nothing usable.
        if let Some(t) = plan.gpus.restriction() {
            if !victim.gpus.iter().any(|&g| plan.cluster.gpu_type(g) == t) {
                continue;
            }
        }
        s.set_stopped(vidx, true);
        s.victims.push(vidx);
        release(plan, fit, victim, &victim.gpus);
        if try_fit(fit, plan, gpus) {
            ok = true;
            break;
        }
    }
    if ok {
        *cursor = c;
        out.stop.extend(s.victims.iter().map(|&v| jobs.at(v).id));
    } else {
        for &v in &s.victims {
            s.flags[v] &= !STOPPED;
            occupy(plan, fit, jobs.at(v), &jobs.at(v).gpus);
        }
        *cursor = saved;
    }
    s.victims.clear();
    ok
}
