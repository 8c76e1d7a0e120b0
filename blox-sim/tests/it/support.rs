//! Test helpers shared by the engine's tests (`blox-sim`) and the Blox model's
//! (`blox-original`, which includes this file by path). Each binary uses a part of them.

#![allow(dead_code)]

pub(crate) use blox_admission::{AcceptAll, AdmissionConfig};
pub(crate) use blox_core::{BoxPlacement, BoxScheduling};
pub(crate) use blox_core::{ClusterSpec, ConstantSpeed, JobId, JobSpec, Pipeline, Time};
pub(crate) use blox_metrics::{JobLog, JobRecord, Timeline};
pub(crate) use blox_placement::Scattered;
pub(crate) use blox_sim::{
    Exact, JobList, RunOutcome, SimConfig, Simulator, TimeModel, TrackWindow,
};

/// A job arriving at `arrival` seconds, needing `gpus` GPUs for `work` seconds.
pub(crate) fn job(arrival: u64, work: f64, gpus: u32) -> JobSpec {
    JobSpec::new(Time::from_secs(arrival), gpus, work)
}

/// Run `jobs` on `nodes x per` GPUs with accept-all, `policy` and scattered placement.
pub(crate) fn run_jobs<Tm: Preset>(
    cfg: SimConfig<Tm>,
    nodes: u32,
    per: u32,
    policy: &str,
    jobs: Vec<JobSpec>,
) -> (RunOutcome, JobLog, Timeline) {
    run_with(cfg, nodes, per, policy, AdmissionConfig::AcceptAll, jobs).expect("the run succeeds")
}

/// Records `(time_s, job)` of every counted preemption, for per-round assertions.
#[derive(Default)]
pub(crate) struct Stops(pub Vec<(u64, u32)>);

impl blox_core::MetricSink for Stops {
    fn on_event(&mut self, e: &blox_core::Event<'_>) {
        if let blox_core::Event::Preempted {
            time,
            job,
            counted: true,
        } = e
        {
            self.0.push((time.as_secs(), job.0));
        }
    }
}

impl Stops {
    /// Jobs stopped at `t` seconds, in stop order.
    pub(crate) fn at(&self, t: u64) -> Vec<u32> {
        self.0.iter().filter(|s| s.0 == t).map(|s| s.1).collect()
    }
}

/// Run and return who was stopped when.
pub(crate) fn stops<Tm: Preset>(
    cfg: SimConfig<Tm>,
    nodes: u32,
    per: u32,
    policy: &str,
    jobs: Vec<JobSpec>,
) -> Stops {
    let (policy, placement) = preset(&cfg, policy);
    let scheduler = Pipeline::new(AcceptAll, policy, placement);
    let mut sim = Simulator::new(
        cfg,
        ClusterSpec::uniform(nodes, per),
        scheduler,
        ConstantSpeed(1.0),
        Stops::default(),
    );
    sim.run(&mut JobList::new(jobs)).unwrap();
    sim.into_sink()
}

/// The components a stock name builds under a time model's semantics: the stock ones, or a
/// peer's own versions (each test binary says which, per model).
pub(crate) trait Preset: TimeModel {
    /// `policy` and the scattered placement.
    fn preset(policy: &str) -> (BoxScheduling, BoxPlacement);
}

/// The stock components: `policy` built from its configuration, and the scattered placement.
#[allow(dead_code)]
pub(crate) fn stock(policy: &str) -> (BoxScheduling, BoxPlacement) {
    let env = blox_policies::PolicyEnv::new(None);
    let policy: blox_policies::PolicyConfig = policy.parse().unwrap();
    (policy.build(&env).unwrap(), Box::new(Scattered::new()))
}

/// `policy` and the scattered placement as the model's preset builds them.
pub(crate) fn preset<Tm: Preset>(
    _cfg: &SimConfig<Tm>,
    policy: &str,
) -> (BoxScheduling, BoxPlacement) {
    Tm::preset(policy)
}

pub(crate) fn run_with<Tm: Preset>(
    cfg: SimConfig<Tm>,
    nodes: u32,
    per: u32,
    policy: &str,
    admission: AdmissionConfig,
    jobs: Vec<JobSpec>,
) -> Result<(RunOutcome, JobLog, Timeline), blox_sim::SimError> {
    let (policy, placement) = preset(&cfg, policy);
    let scheduler = Pipeline::new(admission.build().unwrap(), policy, placement);
    let mut sim = Simulator::new(
        cfg,
        ClusterSpec::uniform(nodes, per),
        scheduler,
        ConstantSpeed(1.0),
        (JobLog::default(), Timeline::default()),
    );
    let outcome = sim.run(&mut JobList::new(jobs))?;
    let (log, timeline) = sim.into_sink();
    Ok((outcome, log, timeline))
}

pub(crate) fn exact() -> SimConfig<Exact> {
    SimConfig::new(Exact::new())
}

pub(crate) fn rec(log: &JobLog, id: u32) -> &JobRecord {
    log.get(JobId(id)).expect("job was admitted")
}

pub(crate) fn secs(t: Option<Time>) -> Option<f64> {
    t.map(Time::as_secs_f64)
}

#[allow(dead_code)]
pub(crate) fn window(a: u32, b: u32) -> Option<TrackWindow> {
    Some(TrackWindow::new(a, b).unwrap())
}

#[allow(dead_code)]
pub(crate) fn accept_all() -> AcceptAll {
    AcceptAll
}
