//! The `pollux` time model: the Pollux artifact's interval loop (POLLUX-SEMANTICS §1, §4).
//!
//! Decisions are taken every interval `R` (the run's round, 60 s in the artifact), from `t = 0`;
//! a job is first considered at the first boundary at or after its arrival. Between boundaries
//! each running job's progress is credited continuously by the job model (epochs, batch size,
//! a restart delay after every allocation change), and a job completes at the exact second its
//! last epoch ends; its GPUs are free for the next decision. All of that lives in the job model
//! `M` (an [`IntervalModel`], e.g. [`PolluxShared`](crate::PolluxShared)), passed in as a generic: the
//! engine knows none of it.

use crate::IntervalModel;
use blox_core::{Job, JobId, MetricSink, Time};
use blox_sim::time::{Advance, NextView, TimeModel, World};
use blox_sim::SimError;

/// The Pollux artifact's time rules over job model `M`.
#[derive(Clone, Debug)]
pub struct Pollux<M> {
    model: M,
    round: Time,
    done: Vec<(JobId, Time)>,
    /// Whether `FirstProgress` was emitted, per job index.
    responded: Vec<bool>,
}

impl<M: IntervalModel> Pollux<M> {
    /// The model over job model `model`.
    pub fn new(model: M) -> Self {
        Pollux {
            model,
            round: Time::ZERO,
            done: Vec::new(),
            responded: Vec::new(),
        }
    }

    /// The job model (e.g. to read its error after a run).
    pub fn job_model(&self) -> &M {
        &self.model
    }
}

impl<M: IntervalModel> TimeModel for Pollux<M> {
    fn name(&self) -> &'static str {
        "pollux"
    }

    fn begin(&mut self, round: Time) -> Result<(), SimError> {
        if round == Time::ZERO || round.as_millis() % 1000 != 0 {
            return Err(SimError::Config(format!(
                "pollux semantics needs a whole number of seconds per interval (got {} ms)",
                round.as_millis()
            )));
        }
        self.round = round;
        self.done.clear();
        self.responded.clear();
        self.model.begin(round).map_err(SimError::Config)
    }

    fn admitted(&mut self, job: &Job, now: Time) {
        self.responded.push(false);
        self.model.admitted(job.id, &job.spec, now);
    }

    fn advance<S: MetricSink + ?Sized>(&mut self, t: Time, world: &mut World<'_, S>) -> Advance {
        if t > Time::ZERO {
            self.done.clear();
            self.model.advance(t, &mut self.done);
            let r = self.round.as_secs_f64();
            let (table, sink) = world.jobs_and_sink();
            for mut job in table.iter_progress_mut() {
                if let Some(a) = self.model.attained_gpu_seconds(job.id) {
                    *job.attained_gpu_s_mut() = a;
                }
                if job.is_running() {
                    *job.executed_mut() += r;
                    *job.attained_wall_s_mut() += r;
                    let seen = &mut self.responded[job.id.index()];
                    if !*seen {
                        *seen = true;
                        sink.on_event(&blox_core::Event::FirstProgress {
                            time: t,
                            job: job.id,
                        });
                    }
                }
            }
            for i in 0..self.done.len() {
                let (id, at) = self.done[i];
                world.complete(id, at);
            }
        }
        if world.tracked_complete() {
            let end = self.done.iter().map(|d| d.1).max().unwrap_or(t);
            Advance::Finished(end.max(Time::ZERO))
        } else {
            Advance::Continue
        }
    }

    /// Every allocation change is a restart in the artifact, even onto the same GPUs.
    fn elide_relaunch(&self) -> bool {
        false
    }

    fn stopping(&mut self, job: &mut Job, t: Time) {
        self.model.stopped(job.id, t);
    }

    fn started<S: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        _speed: f64,
        _resumed: bool,
        t: Time,
        world: &mut World<'_, S>,
    ) -> Result<(), SimError> {
        let gpus: Vec<blox_core::GpuId> = world
            .jobs()
            .get(id)
            .map(|j| j.gpus.iter().copied().collect())
            .unwrap_or_default();
        self.model.started(id, &gpus, t).map_err(SimError::Config)
    }

    fn next_decision<S: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        view: NextView,
        _next_arrival: Option<Time>,
        _world: &World<'_, S>,
    ) -> Time {
        t + view.round
    }

    fn drained_end(&self, _t: Time, last_completion: Time) -> Time {
        last_completion
    }
}
