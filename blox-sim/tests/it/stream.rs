//! `JobStream`: a generator's jobs, drawn as the run reaches them, are exactly the jobs a
//! `JobList` of the same jobs gives, call for call; an arrival out of order is an error.

use blox_core::{JobSpec, Time};
use blox_sim::{JobList, JobStream, SimError, Workload};

/// A job arriving at `arrival` ms.
fn spec(arrival: u64, k: u32) -> JobSpec {
    JobSpec::new(Time::from_millis(arrival), 1 + k % 3, 10.0 + f64::from(k))
}

/// Every call's answer, as (arrival, GPUs) of the jobs returned and the next arrival.
type Calls = Vec<(Vec<(u64, u32)>, Option<u64>)>;

/// Calls at `ts` ms.
fn drive(w: &mut dyn Workload, ts: &[u64]) -> Calls {
    let mut out = Vec::new();
    ts.iter()
        .map(|&t| {
            out.clear();
            w.arrivals_until(Time::from_millis(t), &mut out)
                .expect("in order");
            let got = out
                .iter()
                .map(|j| (j.arrival.as_millis(), j.n_gpus))
                .collect();
            let next = w.next_arrival().expect("in order").map(Time::as_millis);
            (got, next)
        })
        .collect()
}

#[test]
fn a_stream_gives_what_a_list_of_its_jobs_gives() {
    // Ties, a burst at one time, gaps; calls at, between and after the arrivals, some
    // repeated, some skipping several arrivals at once.
    let arrivals = [0, 0, 10, 25, 25, 25, 70, 75, 300, 300, 310];
    let jobs: Vec<JobSpec> = arrivals.iter().zip(0..).map(|(&a, k)| spec(a, k)).collect();
    let calls = [0, 0, 5, 25, 25, 30, 74, 290, 300, 1000, 1000];
    for limit in [0, 1, 2, 5, jobs.len(), jobs.len() + 3] {
        let take = limit.min(jobs.len());
        let mut list = JobList::new(jobs[..take].to_vec());
        let mut stream = JobStream::new(jobs.clone().into_iter(), limit);
        assert_eq!(
            drive(&mut stream, &calls),
            drive(&mut list, &calls),
            "limit {limit}"
        );
        // Peeking first (next_arrival) changes nothing.
        let mut list = JobList::new(jobs[..take].to_vec());
        let mut stream = JobStream::new(jobs.clone().into_iter(), limit);
        assert_eq!(stream.next_arrival().unwrap(), list.next_arrival().unwrap());
        assert_eq!(drive(&mut stream, &calls), drive(&mut list, &calls));
    }
}

#[test]
fn a_stream_refuses_an_arrival_out_of_order() {
    let jobs = vec![spec(0, 0), spec(5000, 1), spec(3000, 2), spec(9000, 3)];
    let mut stream = JobStream::new(jobs.into_iter(), 4);
    let mut out = Vec::new();
    stream.arrivals_until(Time::from_secs(1), &mut out).unwrap();
    assert_eq!(out.len(), 1);
    // The job at 5 s waits (after 1 s); the one at 3 s behind it is the error, whichever
    // call draws it.
    let err = stream
        .arrivals_until(Time::from_secs(6), &mut out)
        .unwrap_err();
    match err {
        SimError::Config(m) => assert!(
            m.contains("arrival at 3 s after one at 5 s") && m.contains("in order"),
            "{m}"
        ),
        other => panic!("not a config error: {other:?}"),
    }
    let jobs = vec![spec(0, 0), spec(5000, 1), spec(3000, 2)];
    let mut stream = JobStream::new(jobs.into_iter(), 3);
    assert_eq!(stream.next_arrival().unwrap(), Some(Time::ZERO));
    stream
        .arrivals_until(Time::from_secs(9), &mut out)
        .unwrap_err();
}
