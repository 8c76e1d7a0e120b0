//! The shared sorts every key-based policy uses.

use blox_core::{Ctx, Job, JobId, Schedule};
use std::cmp::Ordering;

/// Reusable buffer for [`order_by_key`].
pub(crate) type KeyBuf = Vec<(u32, f64, JobId, u32)>;

/// Push every active job into `out`, sorted ascending by `(priority, key, id)`, each with its
/// requested GPU count.
///
/// Sorting by id last makes the result the same as Blox's stable sort over a table in id order.
/// Keys compare with `f64::total_cmp`, so a NaN key (a bug in a key function) cannot make the
/// order depend on the sort algorithm.
pub(crate) fn order_by_key(
    ctx: &Ctx<'_>,
    buf: &mut KeyBuf,
    out: &mut Schedule,
    key: impl Fn(&Job) -> f64,
) {
    buf.clear();
    buf.extend(
        ctx.jobs
            .iter()
            .map(|j| (j.priority, key(j), j.id, j.n_gpus())),
    );
    buf.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    out.entries.reserve(buf.len());
    for &(_, _, id, n) in buf.iter() {
        out.push(id, n);
    }
}

/// A key made of a small integer class and a float, compared class first, then the float with
/// `f64::total_cmp`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ClassKey {
    pub(crate) class: u64,
    pub(crate) value: f64,
}

impl ClassKey {
    pub(crate) fn cmp(&self, other: &Self) -> Ordering {
        self.class
            .cmp(&other.class)
            .then(self.value.total_cmp(&other.value))
    }
}

/// Reusable buffer for [`order_by_class_key`].
pub(crate) type ClassKeyBuf = Vec<(u32, ClassKey, JobId, u32)>;

/// As [`order_by_key`], with a two-level key: ascending `(priority, class, value, id)`.
pub(crate) fn order_by_class_key(
    ctx: &Ctx<'_>,
    buf: &mut ClassKeyBuf,
    out: &mut Schedule,
    mut key: impl FnMut(&Job) -> ClassKey,
) {
    buf.clear();
    buf.extend(
        ctx.jobs
            .iter()
            .map(|j| (j.priority, key(j), j.id, j.n_gpus())),
    );
    buf.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    out.entries.reserve(buf.len());
    for &(_, _, id, n) in buf.iter() {
        out.push(id, n);
    }
}
