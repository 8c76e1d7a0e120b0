//! Fuzz the node-event file reader (`--node-events`): it must never panic; a file it accepts
//! has its events in time order, each row's fields as the format allows, and written back as
//! `time_s,node,event[,gpus,type]` rows it reads the same; checking it against a cluster never
//! panics either.
#![no_main]

use blox_core::{ClusterSpec, NodeChange};
use blox_nodes::NodeEventFile;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.csv");
    let Ok(file) = NodeEventFile::parse(text, path) else {
        return;
    };
    let events = file.events();
    assert!(events.windows(2).all(|w| w[0].time <= w[1].time));
    let mut back = String::from("time_s,node,event,gpus,type\n");
    for e in events {
        // Only a join names a shape, and a row is whole-node.
        assert!(e.spec.is_none() || e.change == NodeChange::Join, "{e:?}");
        assert!(e.gpu.is_none());
        assert!(e
            .origin
            .as_deref()
            .is_some_and(|o| o.starts_with("fuzz.csv:")));
        let t = e.time.0;
        back.push_str(&format!(
            "{}.{:03},{},{}",
            t / 1000,
            t % 1000,
            e.node.0,
            e.change
        ));
        if let Some(s) = &e.spec {
            assert!(s.gpus >= 1);
            back.push_str(&format!(",{},{}", s.gpus, s.gpu_type));
        }
        back.push('\n');
    }
    let again = NodeEventFile::parse(&back, path)
        .unwrap_or_else(|e| panic!("the file written back is refused: {e}\n{back}"));
    let strip = |f: &NodeEventFile| {
        f.events()
            .iter()
            .map(|e| (e.time, e.node, e.change, e.spec.clone()))
            .collect::<Vec<_>>()
    };
    // Equal times keep their file order (a stable sort), so the rows read back in order.
    assert_eq!(strip(&file), strip(&again), "{back}");
    // Checking against clusters, small and at the bounds, never panics.
    for c in ["1x1", "4x8", "2x4,1x2:v100"] {
        let cluster: ClusterSpec = c.parse().unwrap();
        let _ = file.check(&cluster);
    }
});
