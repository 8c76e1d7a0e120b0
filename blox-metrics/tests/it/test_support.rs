//! Hand-built logs for unit tests.

use blox_core::{Event, GpuId, JobId, JobSpec, MetricSink, Time};
use blox_metrics::JobLog;

/// One job: (arrival, work_s, first start, completion), times in milliseconds.
pub(crate) type JobMs = (u64, f64, Option<u64>, Option<u64>);

/// A log of jobs admitted on arrival with ids 0, 1, … in slice order, each on one GPU.
pub(crate) fn log_ms(jobs: &[JobMs]) -> JobLog {
    let mut log = JobLog::default();
    let gpus = [GpuId(0)];
    for (i, &(arrival, work, start, completion)) in jobs.iter().enumerate() {
        let spec = JobSpec::new(Time::from_millis(arrival), 1, work);
        let seq = i as u64;
        let job = JobId(i as u32);
        let t = Time::from_millis(arrival);
        log.on_event(&Event::Arrived {
            time: t,
            seq,
            spec: &spec,
        });
        log.on_event(&Event::Admitted { time: t, seq, job });
        if let Some(s) = start {
            let time = Time::from_millis(s);
            log.on_event(&Event::Started {
                time,
                job,
                gpus: &gpus,
                speed: 1.0,
            });
            log.on_event(&Event::FirstProgress { time, job });
        }
        if let Some(c) = completion {
            log.on_event(&Event::Completed {
                time: Time::from_millis(c),
                job,
            });
        }
    }
    log
}

/// [`log_ms`] with whole seconds.
pub(crate) fn log_of(jobs: &[(u64, f64, Option<u64>, Option<u64>)]) -> JobLog {
    let ms: Vec<JobMs> = jobs
        .iter()
        .map(|&(a, w, s, c)| (a * 1000, w, s.map(|x| x * 1000), c.map(|x| x * 1000)))
        .collect();
    log_ms(&ms)
}

/// Count a preemption of `job` in `log`.
pub(crate) fn preempt(log: &mut JobLog, job: u32) {
    log.on_event(&Event::Preempted {
        time: Time::ZERO,
        job: JobId(job),
        counted: true,
    });
}
