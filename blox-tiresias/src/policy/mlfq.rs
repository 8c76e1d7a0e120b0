//! The multi-level queues of Tiresias' 2D-LAS schemes (`dlas`, `dlas-gpu`,
//! `dlas-gpu-gittins`), as `run_sim.py: dlas_sim_jobs` keeps them (TIRESIAS-SEMANTICS.md §5).

use super::gittins::GittinsTable;
use super::job::{PeerJob, PeerStatus};
use std::cmp::Ordering;

/// Queues of job indices, highest priority first, with Tiresias' rules for entering, leaving,
/// demotion, the scheduling pass and the reordering after it.
///
/// - A job enters at the end of Q0 and leaves its queue on completion.
/// - **Demotion** (checked when a running job is updated): one level at most per event, to the
///   end of the next queue, once its service reaches the queue's limit. Service is
///   `int(executed_time × num_gpu)` GPU-seconds (`gpu_time`) or `executed_time` seconds.
/// - **Pass**: queues in order, each walked in order; a job runs if it fits in the GPUs still
///   free of the whole cluster (node boundaries ignored), and a job that does not fit never
///   stops the walk (back-filling across queues).
/// - **Reordering** after the pass: in each queue the jobs left pending move, in order, behind
///   the running ones, so running jobs keep their place ahead of waiting ones.
/// - **Queue-jump prediction** (a quirk of the original, kept): the next time a running job
///   could be demoted is `now + ⌊(limit − executed_time) / num_gpu⌋` under `gpu_time`, mixing
///   wall seconds and GPU-seconds, floored; `now + limit − executed_time` otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlfq {
    queues: Vec<Vec<usize>>,
    limits: Vec<i64>,
    gpu_time: bool,
}

impl Mlfq {
    /// `limits.len() + 1` empty queues; `gpu_time` counts service in GPU-seconds.
    pub fn new(limits: &[i64], gpu_time: bool) -> Self {
        Mlfq {
            queues: vec![Vec::new(); limits.len() + 1],
            limits: limits.to_vec(),
            gpu_time,
        }
    }

    /// The queues, highest priority first.
    pub fn queues(&self) -> &[Vec<usize>] {
        &self.queues
    }

    /// A new job enters at the end of Q0.
    pub fn admit(&mut self, j: usize, job: &mut PeerJob) {
        job.q_id = 0;
        self.queues[0].push(j);
    }

    /// A job leaves its queue (completion).
    pub fn remove(&mut self, j: usize, job: &PeerJob) {
        let q = &mut self.queues[job.q_id];
        if let Some(pos) = q.iter().position(|&x| x == j) {
            q.remove(pos);
        }
    }

    /// The service the queues are keyed by.
    pub fn service(&self, job: &PeerJob) -> i64 {
        if self.gpu_time {
            job.executed_time * job.num_gpu
        } else {
            job.executed_time
        }
    }

    /// Demote a running job by one level if its service has reached its queue's limit;
    /// whether it was demoted.
    pub fn check_demotion(&mut self, j: usize, job: &mut PeerJob) -> bool {
        let q = job.q_id;
        if q + 1 < self.queues.len() && self.service(job) >= self.limits[q] {
            self.remove(j, job);
            job.q_id = q + 1;
            self.queues[q + 1].push(j);
            true
        } else {
            false
        }
    }

    /// The scheduling pass at `now` on `total_gpus` GPUs: which jobs run. With `gittins`, each
    /// queue is first stably sorted by (rank, −submit_time) descending: highest index first,
    /// then earliest arrival, then the previous order. Pending jobs that run start (appended
    /// to `started`), running jobs that do not are preempted (appended to `preempted`).
    pub fn pass(
        &mut self,
        now: i64,
        total_gpus: i64,
        jobs: &mut [PeerJob],
        gittins: bool,
        started: &mut Vec<usize>,
        preempted: &mut Vec<usize>,
    ) {
        let mut free = total_gpus;
        for queue in &mut self.queues {
            if gittins {
                queue.sort_by(|&a, &b| gittins_key_desc(&jobs[a], &jobs[b]));
            }
            for &j in queue.iter() {
                let job = &jobs[j];
                if free >= job.num_gpu {
                    if job.status == PeerStatus::Pending {
                        started.push(j);
                    }
                    free -= job.num_gpu;
                } else if job.status == PeerStatus::Running {
                    preempted.push(j);
                }
            }
        }
        for &j in preempted.iter() {
            jobs[j].preempt();
        }
        for &j in started.iter() {
            jobs[j].start(now);
        }
        for queue in &mut self.queues {
            // Stable partition: running first, then pending, each in its current order.
            let (mut run, pend): (Vec<usize>, Vec<usize>) =
                queue.iter().partition(|&&j| jobs[j].is_running());
            run.extend(pend);
            *queue = run;
        }
    }

    /// The predicted time of the next queue jump over the running jobs of `runnable`, or
    /// `None` if no running job is below the last queue.
    pub fn next_jump(&self, now: i64, runnable: &[usize], jobs: &[PeerJob]) -> Option<i64> {
        runnable
            .iter()
            .map(|&j| &jobs[j])
            .filter(|job| job.is_running() && job.q_id + 1 < self.queues.len())
            .map(|job| {
                let left = self.limits[job.q_id] - job.executed_time;
                if self.gpu_time {
                    now + left.div_euclid(job.num_gpu.max(1))
                } else {
                    now + left
                }
            })
            .min()
    }

    /// Set every listed job's Gittins rank from its attained GPU-seconds.
    pub fn rank(table: &GittinsTable, job: &mut PeerJob) {
        job.rank = table.index(job.executed_time * job.num_gpu);
    }
}

fn gittins_key_desc(a: &PeerJob, b: &PeerJob) -> Ordering {
    // Descending on (rank, r_submit_time = −submit_time).
    b.rank
        .partial_cmp(&a.rank)
        .unwrap_or(Ordering::Equal)
        .then((-b.submit_time).cmp(&-a.submit_time))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(g: i64, executed: i64) -> PeerJob {
        let mut j = PeerJob::new(g, 0, 10_000);
        j.status = PeerStatus::Running;
        j.executed_time = executed;
        j.total_executed_time = executed;
        j
    }

    #[test]
    fn jump_prediction_mixes_units_and_floors() {
        let q = Mlfq::new(&[3250, 7200], true);
        let jobs = vec![running(4, 0), running(4, 10)];
        // §11.2: ⌊3250/4⌋ = 812 at t=0; ⌊(3250−10)/4⌋ = 810 at t=10 → 820.
        assert_eq!(q.next_jump(0, &[0], &jobs), Some(812));
        assert_eq!(q.next_jump(10, &[1], &jobs), Some(820));
        let wall = Mlfq::new(&[3250, 7200], false);
        assert_eq!(wall.next_jump(10, &[1], &jobs), Some(3250));
    }

    #[test]
    fn demotion_is_one_level_per_check() {
        let mut q = Mlfq::new(&[100, 200], true);
        let mut jobs = [running(1, 500)];
        q.admit(0, &mut jobs[0]);
        q.check_demotion(0, &mut jobs[0]);
        assert_eq!(jobs[0].q_id, 1);
        q.check_demotion(0, &mut jobs[0]);
        assert_eq!(jobs[0].q_id, 2);
        q.check_demotion(0, &mut jobs[0]);
        assert_eq!(jobs[0].q_id, 2);
        assert_eq!(q.queues()[2], vec![0]);
    }

    #[test]
    fn pass_backfills_and_keeps_running_jobs_ahead() {
        let mut q = Mlfq::new(&[3250, 7200], true);
        let mut jobs = vec![
            PeerJob::new(4, 0, 100), // pending, arrived first
            running(2, 5),           // running
            PeerJob::new(2, 0, 100), // pending, fits
            PeerJob::new(1, 0, 100), // pending, does not fit
        ];
        for (j, job) in jobs.iter_mut().enumerate() {
            q.admit(j, job);
        }
        let (mut s, mut p) = (Vec::new(), Vec::new());
        q.pass(7, 4, &mut jobs, false, &mut s, &mut p);
        // Job 0 (4 GPUs) runs first; job 1 (running) is preempted; 2 and 3 do not fit.
        assert_eq!(s, vec![0]);
        assert_eq!(p, vec![1]);
        assert_eq!(jobs[0].start_time, Some(7));
        assert_eq!(q.queues()[0], vec![0, 1, 2, 3]);
        // Next pass with 6 GPUs: 0 (4) runs, 1 (2) fits, 2 and 3 do not.
        let (mut s, mut p) = (Vec::new(), Vec::new());
        q.pass(8, 6, &mut jobs, false, &mut s, &mut p);
        assert_eq!(s, vec![1]);
        assert!(p.is_empty());
        assert_eq!(jobs[1].preempt, 1);
        assert_eq!(jobs[1].resume, 1);
        assert_eq!(q.queues()[0], vec![0, 1, 2, 3]);
    }

    #[test]
    fn gittins_order_is_rank_then_earliest_arrival() {
        let mut q = Mlfq::new(&[3250], true);
        let mut jobs = vec![
            PeerJob::new(1, 5, 100),
            PeerJob::new(1, 0, 100),
            PeerJob::new(1, 0, 100),
        ];
        jobs[0].rank = 2.0;
        jobs[1].rank = 1.0;
        jobs[2].rank = 2.0;
        for j in 0..3 {
            q.queues[0].push(j);
        }
        let (mut s, mut p) = (Vec::new(), Vec::new());
        q.pass(10, 1, &mut jobs, true, &mut s, &mut p);
        // Rank 2 first, earlier arrival (job 2, submit 0) before job 0 (submit 5).
        assert_eq!(s, vec![2]);
        assert_eq!(q.queues()[0], vec![2, 0, 1]);
    }
}
