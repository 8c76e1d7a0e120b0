use blox_core::{AdmissionPolicy, Admissions, Ctx, QueuedJob};

/// Admits every arrived job in the round it is first seen (Blox's `AcceptAll`).
///
/// Cost per round: O(arrivals). Ties: arrival order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AcceptAll;

impl AdmissionPolicy for AcceptAll {
    fn admit(&mut self, _: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        out.admit.extend(0..queue.len());
    }

    fn name(&self) -> String {
        "accept-all".into()
    }

    fn reads_progress(&self) -> bool {
        false
    }
}
