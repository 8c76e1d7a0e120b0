use crate::testing::{run, tables};
use blox_core::*;
use blox_policies::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn the_unsettled_schedule_is_the_schedule_less_leading_settled_entries(t in tables()) {
        let full = run(&mut Fifo::default(), &t);
        let mut part = Schedule::default();
        Fifo::default().schedule_unsettled(&t.ctx(), &mut part);
        let k = full.len() - part.len();
        prop_assert_eq!(&full.entries[k..], &part.entries[..]);
        for e in &full.entries[..k] {
            let j = t.jobs.get(e.job).expect("active");
            prop_assert!(j.is_running() && j.gpus.len() as u32 == j.n_gpus());
            prop_assert!(e.n_gpus == j.n_gpus() && e.gpu_type.is_none());
        }
    }
}
