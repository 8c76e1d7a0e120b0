//! [`Blox`]: Blox's simulator exactly (`BLOX-SEMANTICS.md`).

use blox_core::{add_repeated, additions_to_reach, Event, Job, JobId, MetricSink, Time};
use blox_sim::time::{Advance, NextView, SamplePoint, TimeModel, World};
use blox_sim::SimError;

/// Blox's round semantics, job by job.
///
/// At step 1 of round `t` every job running since an earlier round is credited `R` seconds of
/// progress (times its speed, e.g. Blox's Optimus factor, with Blox's f64 operation order) and
/// `R` seconds of attained service (`Job::attained_wall_s += R`, whatever its GPU count, which
/// is Blox's definition; `Job::attained_gpu_s += R × GPUs`); a job whose progress reaches its total
/// completes **at `t`** and frees its GPUs in time for that round's placement. Responsiveness is
/// measured to the first round that credits a job (its first launch + `R`). Every entry of a
/// round's stop list counts as a preemption, including same-round relaunches. The run ends at the
/// round whose step 1 completes the last tracked job. The round sample is taken where Blox's
/// `las_scheduler.py` takes it: after placement, before execution. Starts and stops cost
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct Blox {
    jobs: Vec<BloxJob>,
    round: Time,
}

impl PartialEq for Blox {
    /// Blox has no parameters: every value is the same model (run state is not compared).
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug)]
struct BloxJob {
    /// Progress has been credited up to this round.
    credited_to: Time,
    /// The round of completion if left running.
    finish: Time,
    /// Progress per second while running.
    speed: f64,
    /// `FirstProgress` has been emitted.
    responded: bool,
}

impl Blox {
    /// The model.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TimeModel for Blox {
    fn name(&self) -> &'static str {
        "blox"
    }

    fn begin(&mut self, round: Time) -> Result<(), SimError> {
        self.jobs.clear();
        self.round = round;
        Ok(())
    }

    fn admitted(&mut self, job: &Job, _now: Time) {
        debug_assert_eq!(job.id.index(), self.jobs.len());
        self.jobs.push(BloxJob {
            credited_to: Time::ZERO,
            finish: Time::MAX,
            speed: 1.0,
            responded: false,
        });
    }

    fn advance<M: MetricSink + ?Sized>(&mut self, t: Time, world: &mut World<'_, M>) -> Advance {
        let r = self.round;
        let r_s = r.as_secs_f64();
        let mut done: Vec<JobId> = Vec::new();
        let (table, sink) = world.jobs_and_sink();
        for mut job in table.iter_progress_mut() {
            if !job.is_running() {
                continue;
            }
            let st = &mut self.jobs[job.id.index()];
            if st.credited_to < t {
                // One credit per round up to `t`, summed as Blox's per-round loop sums them (the
                // same rounding at every step) but in O(log rounds): a job skipped over 10^9
                // rounds costs what one round costs.
                let rounds = (t - st.credited_to).as_millis().div_ceil(r.as_millis());
                st.credited_to += Time(rounds * r.as_millis());
                // Blox: `iters * speed + executed` for Optimus, `executed + iters` otherwise.
                // IEEE addition is commutative and `iters * 1.0 == iters`, so one form serves.
                *job.executed_mut() = add_repeated(job.executed, r_s * st.speed, rounds);
                *job.attained_wall_s_mut() = add_repeated(job.attained_wall_s, r_s, rounds);
                *job.attained_gpu_s_mut() =
                    add_repeated(job.attained_gpu_s, r_s * f64::from(job.spec.n_gpus), rounds);
            }
            if !st.responded {
                st.responded = true;
                sink.on_event(&Event::FirstProgress {
                    time: t,
                    job: job.id,
                });
            }
            if job.executed >= job.spec.work_s {
                done.push(job.id);
            }
        }
        for id in done {
            world.complete(id, t);
        }
        if world.tracked_complete() {
            Advance::Finished(t)
        } else {
            Advance::Continue
        }
    }

    fn elide_relaunch(&self) -> bool {
        false
    }

    fn sample_point(&self) -> SamplePoint {
        SamplePoint::AfterPlacement
    }

    fn stopping(&mut self, _job: &mut Job, _t: Time) {}

    /// Progress at the checkpoint: the whole rounds credited by then, added with the credit
    /// loop's own operation order.
    fn rollback(
        &mut self,
        job: &mut Job,
        executed_at_start: f64,
        start: Time,
        checkpoint: Time,
        _t: Time,
    ) {
        let r = self.round;
        let st = &self.jobs[job.id.index()];
        let rounds = (checkpoint - start).as_millis() / r.as_millis();
        let x = add_repeated(executed_at_start, r.as_secs_f64() * st.speed, rounds);
        job.executed = job.executed.min(x);
    }

    fn started<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        speed: f64,
        _resumed: bool,
        t: Time,
        world: &mut World<'_, M>,
    ) -> Result<(), SimError> {
        let r = self.round;
        let job = world.jobs().get(id).expect("a started job is active");
        // Blox credits `R` per round from the next round on; find the round whose credit reaches
        // the total, with the same operation order the credit loop uses (in O(log rounds), so
        // that the engine can skip straight to it however far away it is). A job whose credit
        // can never reach its total (a term too small to move the sum) has no finish round.
        let step = r.as_secs_f64();
        let max_rounds = (u64::MAX - t.as_millis()) / r.as_millis();
        let finish = additions_to_reach(job.executed, step * speed, job.spec.work_s, max_rounds)
            .map_or(Time::MAX, |(k, _)| t + Time(k * r.as_millis()));
        let st = &mut self.jobs[id.index()];
        st.speed = speed;
        st.credited_to = t;
        st.finish = finish;
        Ok(())
    }

    fn next_decision<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        view: NextView,
        next_arrival: Option<Time>,
        world: &World<'_, M>,
    ) -> Time {
        let r = view.round;
        let next = t + r;
        // A job started this round is credited for the first time next round.
        if view.waiting || view.started {
            return next;
        }
        let mut target = Time::MAX;
        if let Some(a) = next_arrival {
            target = target.min(a.ceil_to(r).max(next));
        }
        for job in world.jobs().iter() {
            target = target.min(self.jobs[job.id.index()].finish.max(next));
        }
        if target == Time::MAX {
            next
        } else {
            target
        }
    }

    fn drained_end(&self, t: Time, _last_completion: Time) -> Time {
        t
    }
}
