use blox_core::{
    Cluster, ClusterSpec, GpuId, Job, JobId, JobSpec, JobTable, NodeChange, NodeId, Seed, Time,
};
use blox_nodes::{
    apply, Autoscaling, Bounds, ClusterEvents, EventSources, FailureScope, FailureSpec, NodeEvent,
    NodeEventFile, QueueAutoscaler, RandomFailures, RoundView,
};
use std::path::Path;

fn parse_err(text: &str) -> String {
    NodeEventFile::parse(text, Path::new("ev.csv"))
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_rows_name_file_line_and_field() {
    assert_eq!(
        parse_err("time_s,node,event\n10,0,leave\nabc,1,fail\n"),
        "ev.csv:3: field `time_s`: `abc` is not a number"
    );
    assert_eq!(
        parse_err("-5,1,fail\n"),
        "ev.csv:1: field `time_s`: `-5` is not a time ≥ 0"
    );
    assert_eq!(
        parse_err("# c\n\n5,x,fail\n"),
        "ev.csv:3: field `node`: `x` is not a node id (a whole number ≥ 0)"
    );
    assert_eq!(
        parse_err("5,1,fail,4\n"),
        "ev.csv:1: field `gpus`: only a `join` names the node's GPUs (this row is `fail`)"
    );
    assert_eq!(
        parse_err("5,4,join,0\n"),
        "ev.csv:1: field `gpus`: `0` is not a positive whole number"
    );
    assert_eq!(
        parse_err("5,4,join,4,v 100\n"),
        "ev.csv:1: field `type`: `v 100` is not a GPU type name (letters, digits, `-`, `_`, `.`)"
    );
    assert_eq!(
        parse_err("5,4\n"),
        "ev.csv:1: 2 fields; expected time_s,node,event[,gpus,type]"
    );
}

#[test]
fn a_file_is_checked_against_its_cluster() {
    let spec = ClusterSpec::uniform(4, 8);
    let f =
        NodeEventFile::parse("10,4,join,8\n20,5,join,2,k80\n30,5,fail\n", Path::new("e")).unwrap();
    f.check(&spec).unwrap();
    let f = NodeEventFile::parse("10,0,leave\n20,4,fail\n", Path::new("e")).unwrap();
    assert_eq!(
        f.check(&spec).unwrap_err().to_string(),
        "e:2: field `node`: node 4 does not exist (the cluster has nodes 0..3 at t=20 s; a new node takes id 4)"
    );
    let f = NodeEventFile::parse("10,4,join\n", Path::new("e")).unwrap();
    assert!(f
        .check(&spec)
        .unwrap_err()
        .to_string()
        .starts_with("e:1: field `gpus`"));
    let f = NodeEventFile::parse("10,1,join,4\n", Path::new("e")).unwrap();
    assert!(f
        .check(&spec)
        .unwrap_err()
        .to_string()
        .contains("node 1 exists with 8 GPUs"));
}

#[test]
fn events_come_in_time_order_and_apply() {
    let mut f = NodeEventFile::parse(
        "7200,0,join\n3600,0,leave\n3600,1,fail\n100,4,join,2,k80\n",
        Path::new("e"),
    )
    .unwrap();
    let times: Vec<u64> = f.events().iter().map(|e| e.time.as_secs()).collect();
    assert_eq!(times, vec![100, 3600, 3600, 7200]);
    // Equal times keep file order.
    assert_eq!(f.events()[1].change, NodeChange::Leave);
    let mut c = Cluster::new(ClusterSpec::uniform(4, 8));
    c.allocate(JobId(1), &[GpuId(0), GpuId(8)]);
    c.allocate(JobId(0), &[GpuId(9)]);
    let jobs = JobTable::new();
    let mut out = Vec::new();
    let view = RoundView::new(Time::from_secs(3600), Time::from_secs(300), &c, &jobs, 0);
    f.poll(&view, &mut out).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(f.next_time(), Some(Time::from_secs(7200)));
    let a = apply(&mut c, &out[0]).unwrap();
    assert_eq!(a.node, NodeId(4));
    assert_eq!(c.total_gpus(), 34);
    let a = apply(&mut c, &out[1]).unwrap();
    assert_eq!(a.hit, vec![JobId(1)]);
    let a = apply(&mut c, &out[2]).unwrap();
    assert_eq!(a.hit, vec![JobId(0), JobId(1)], "ascending, once each");
    assert!(a.changed);
    assert!(
        !apply(&mut c, &out[2]).unwrap().changed,
        "a repeat changes nothing"
    );
    assert_eq!(c.available_gpus(), 34 - 16);
    // Unknown nodes are errors naming the origin.
    let e = apply(
        &mut c,
        &NodeEvent::new(Time::ZERO, NodeId(9), NodeChange::Fail).with_origin("x:3"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("x:3: fail of node 9"), "{e}");
    let e = apply(
        &mut c,
        &NodeEvent::new(Time::ZERO, NodeId(5), NodeChange::Join),
    )
    .unwrap_err();
    assert!(e.to_string().contains("needs its GPU count"));
}

#[test]
fn failure_specs_parse_and_reject_bad_values() {
    let s: FailureSpec = "mtbf=100,mttr=2".parse().unwrap();
    assert_eq!(s, FailureSpec::new(100.0, 2.0, FailureScope::Node).unwrap());
    assert_eq!(s.to_string(), "mtbf=100,mttr=2");
    let g: FailureSpec = "mtbf=50.5, mttr=0.5, scope=gpu".parse().unwrap();
    assert_eq!(g.scope, FailureScope::Gpu);
    assert_eq!(g.to_string().parse::<FailureSpec>().unwrap(), g);
    for (bad, want) in [
        ("mtbf=0,mttr=1", "mtbf=0: a mean time must be a positive"),
        ("mtbf=10", "`mttr=HOURS` is missing"),
        ("mtbf=x,mttr=1", "mtbf=`x` is not a number"),
        ("mtbf=1,mttr=1,scope=rack", "scope=`rack`"),
        ("mtbf=1,mttr=1,speed=2", "unknown key `speed`"),
        ("mtbf", "`mtbf` is not KEY=VALUE"),
    ] {
        let e = bad.parse::<FailureSpec>().unwrap_err().to_string();
        assert!(e.starts_with("field `--failures`: "), "{e}");
        assert!(e.contains(want), "{bad}: {e}");
    }
}

fn collect(f: &mut RandomFailures, until: Time) -> Vec<NodeEvent> {
    let c = Cluster::new(ClusterSpec::uniform(4, 8));
    let jobs = JobTable::new();
    let mut out = Vec::new();
    // Poll at irregular steps: the sequence must not depend on the polling times.
    let mut t = Time::ZERO;
    let mut step = 1u64;
    while t < until {
        t += Time::from_secs(step * 997);
        step = step % 7 + 1;
        let view = RoundView::new(t.min(until), Time::from_secs(300), &c, &jobs, 0);
        f.poll(&view, &mut out).unwrap();
    }
    out
}

#[test]
fn random_failures_are_deterministic_and_alternate() {
    let spec: FailureSpec = "mtbf=10,mttr=1".parse().unwrap();
    let cluster = ClusterSpec::uniform(4, 8);
    let until = Time::from_secs(1_000 * 3600);
    let a = collect(&mut RandomFailures::new(spec, &cluster, Seed(7)), until);
    let b = collect(&mut RandomFailures::new(spec, &cluster, Seed(7)), until);
    assert_eq!(a, b, "same seed, same events");
    let c = collect(&mut RandomFailures::new(spec, &cluster, Seed(8)), until);
    assert_ne!(a, c, "another seed, other events");
    // Each node alternates fail, recover, fail, …, in time order.
    for n in 0..4 {
        let seq: Vec<NodeChange> = a
            .iter()
            .filter(|e| e.node == NodeId(n))
            .map(|e| e.change)
            .collect();
        assert!(seq.len() > 50, "node {n}: {} events", seq.len());
        for (k, ch) in seq.iter().enumerate() {
            let want = if k % 2 == 0 {
                NodeChange::Fail
            } else {
                NodeChange::Recover
            };
            assert_eq!(*ch, want);
        }
    }
    assert!(a.windows(2).all(|w| w[0].time <= w[1].time));
    // The mean up time is close to the MTBF (about 90 failures per node: within 25%).
    let fails = a.iter().filter(|e| e.change == NodeChange::Fail).count() as f64 / 4.0;
    let expected = 1_000.0 / 11.0;
    assert!(
        (fails - expected).abs() < 0.25 * expected,
        "{fails} vs {expected}"
    );
}

#[test]
fn gpu_scope_fails_single_gpus() {
    let spec: FailureSpec = "mtbf=20,mttr=1,scope=gpu".parse().unwrap();
    let cluster = ClusterSpec::uniform(2, 4);
    let mut f = RandomFailures::new(spec, &cluster, Seed(1));
    let ev = collect(&mut f, Time::from_secs(200 * 3600));
    assert!(ev.iter().all(|e| e.gpu.is_some_and(|g| g < 4)));
    let units: std::collections::BTreeSet<(u32, u32)> =
        ev.iter().map(|e| (e.node.0, e.gpu.unwrap())).collect();
    assert_eq!(units.len(), 8, "every GPU fails at some point");
}

fn waiting_table(n: u32, gpus: u32) -> JobTable {
    let mut t = JobTable::new();
    for i in 0..n {
        t.push(Job::new(
            JobId(i),
            JobSpec::new(Time::ZERO, gpus, 100.0),
            Time::ZERO,
        ));
    }
    t
}

#[test]
fn the_autoscaler_adds_for_demand_and_removes_idle_nodes_within_bounds() {
    let scaler = QueueAutoscaler::new(4, 0.5, 0).unwrap();
    let bounds = Bounds {
        min_nodes: 1,
        max_nodes: 3,
    };
    let mut auto = Autoscaling::new(scaler, bounds, blox_core::NodeSpec::with_gpus(4)).unwrap();
    let mut c = Cluster::new(ClusterSpec::uniform(1, 4));
    let r = Time::from_secs(300);
    // 5 waiting jobs of 4 GPUs: 20 GPUs wanted, 4 free; the bound stops at 3 nodes.
    let jobs = waiting_table(5, 4);
    let mut out = Vec::new();
    auto.poll(&RoundView::new(Time::ZERO, r, &c, &jobs, 0), &mut out)
        .unwrap();
    assert_eq!(out.len(), 2);
    assert!(out
        .iter()
        .all(|e| e.change == NodeChange::Join && e.spec.is_some()));
    assert_eq!((out[0].node, out[1].node), (NodeId(1), NodeId(2)));
    for e in &out {
        apply(&mut c, e).unwrap();
    }
    assert_eq!(c.total_gpus(), 12);
    // Nothing waits and nothing runs: idle nodes go, the highest first, down to min_nodes.
    let empty = JobTable::new();
    let mut removed = Vec::new();
    for k in 1..5 {
        out.clear();
        auto.poll(
            &RoundView::new(Time(300_000 * k), r, &c, &empty, 0),
            &mut out,
        )
        .unwrap();
        for e in &out {
            assert_eq!(e.change, NodeChange::Leave);
            apply(&mut c, e).unwrap();
            removed.push(e.node);
        }
    }
    assert_eq!(removed, vec![NodeId(2), NodeId(1)]);
    assert_eq!(c.available_gpus(), 4);
    // Demand again: the removed nodes come back first (lowest id first), no new node.
    out.clear();
    auto.poll(
        &RoundView::new(Time(300_000 * 9), r, &c, &waiting_table(2, 4), 0),
        &mut out,
    )
    .unwrap();
    let back: Vec<(NodeId, bool)> = out.iter().map(|e| (e.node, e.spec.is_some())).collect();
    assert_eq!(back, vec![(NodeId(1), false)]);
    assert!(Autoscaling::new(
        QueueAutoscaler::new(4, 0.5, 0).unwrap(),
        Bounds {
            min_nodes: 3,
            max_nodes: 2
        },
        blox_core::NodeSpec::with_gpus(4)
    )
    .is_err());
}

#[test]
fn merged_sources_keep_time_then_source_order() {
    let a = NodeEventFile::parse("10,0,leave\n30,0,join\n", Path::new("a")).unwrap();
    let b = NodeEventFile::parse("10,1,fail\n20,1,recover\n", Path::new("b")).unwrap();
    let mut m = EventSources::new();
    m.push(Box::new(a));
    m.push(Box::new(b));
    assert_eq!(m.next_time(), Some(Time::from_secs(10)));
    let c = Cluster::new(ClusterSpec::uniform(2, 2));
    let jobs = JobTable::new();
    let mut out = Vec::new();
    m.poll(
        &RoundView::new(Time::from_secs(30), Time::from_secs(10), &c, &jobs, 0),
        &mut out,
    )
    .unwrap();
    let got: Vec<(u64, u32)> = out.iter().map(|e| (e.time.as_secs(), e.node.0)).collect();
    assert_eq!(got, vec![(10, 0), (10, 1), (20, 1), (30, 0)]);
    assert_eq!(m.next_time(), None);
}
