//! Sorts for policy authors: order the active jobs by `(starvation class, key, id)` without
//! hand-written float comparisons.
//!
//! Every key-based stock policy (FIFO, LAS, SRTF, SJF, Tiresias, ...) orders through these, so a
//! policy written in its own crate gets the same tie rule and the same treatment of the
//! starvation class for free:
//!
//! ```
//! use blox_core::order::{order_by_key, KeyBuf};
//! use blox_core::{Ctx, Schedule, SchedulingPolicy};
//!
//! /// Shortest remaining service first: remaining work times GPUs.
//! #[derive(Default)]
//! struct Srsf {
//!     buf: KeyBuf,
//! }
//!
//! impl SchedulingPolicy for Srsf {
//!     fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
//!         order_by_key(ctx, &mut self.buf, out, |j| {
//!             j.remaining_work() * f64::from(j.n_gpus())
//!         });
//!     }
//!     fn name(&self) -> String {
//!         "srsf".into()
//!     }
//! }
//! ```

use crate::{Ctx, Job, JobId, JobRow, Schedule};
use std::cmp::Ordering;

/// Reusable buffer for [`order_by_key`]: keep one in the policy so a round allocates nothing.
///
/// It also remembers the order of the last sort, so that the next one starts from it: from
/// one round to the next most keys keep their places (LAS moves only the jobs that ran), and
/// sorting what is nearly in order is nearly linear. The order it returns never depends on what
/// it remembers (keys are unique: the id is the last part of each).
#[derive(Clone, Debug, Default)]
pub struct KeyBuf {
    /// This call's entries `(packed key, GPUs)`.
    items: Vec<(u128, u32)>,
    /// The ids in the order of the last sort (empty when the last call needed none).
    last: Vec<u32>,
    /// By id: a position in `last` (valid only where `last` holds that id there).
    at: Vec<u32>,
    /// Scratch: the entries laid out in `last`'s order (`None` where its job has left).
    laid: Vec<Option<(u128, u32)>>,
}

/// Ids below this bound (or below [`SPREAD`] times the jobs ordered) are placed through a
/// table indexed by id (4 bytes an id); larger ones are sorted from the table's order.
const DENSE_IDS: u32 = 1 << 22;
/// See [`DENSE_IDS`].
const SPREAD: usize = 16;

impl KeyBuf {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Push every active job into `out`, sorted ascending by `(priority, key, id)`, each with its
/// requested GPU count.
///
/// Sorting by id last makes the result the same as Blox's stable sort over a table in id order.
/// Keys compare with `f64::total_cmp`, so a NaN key (a bug in a key function) cannot make the
/// order depend on the sort algorithm.
pub fn order_by_key(
    ctx: &Ctx<'_>,
    buf: &mut KeyBuf,
    out: &mut Schedule,
    key: impl Fn(&Job) -> f64,
) {
    order_packed(
        ctx.jobs
            .iter()
            .map(|j| (pack(j.priority, key(j), j.id), j.n_gpus())),
        buf,
        out,
    );
}

/// As [`order_by_key`], with a key computed from the job's [`JobRow`] (its arrival, GPU
/// request and GPUs held): the same order for the same key, but the pass reads the table's
/// compact rows instead of the jobs, a few times faster on large tables. FIFO orders this way.
///
/// ```
/// use blox_core::order::{order_by_row, KeyBuf};
/// use blox_core::{Ctx, Schedule, SchedulingPolicy};
///
/// /// Latest arrival first.
/// #[derive(Default)]
/// struct Lifo {
///     buf: KeyBuf,
/// }
///
/// impl SchedulingPolicy for Lifo {
///     fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
///         order_by_row(ctx, &mut self.buf, out, |r| -(r.arrival.as_millis() as f64));
///     }
/// }
/// ```
pub fn order_by_row(
    ctx: &Ctx<'_>,
    buf: &mut KeyBuf,
    out: &mut Schedule,
    key: impl Fn(&JobRow) -> f64,
) {
    order_packed(
        ctx.jobs
            .rows()
            .map(|r| (pack(r.priority, key(r), r.id), r.n_gpus)),
        buf,
        out,
    );
}

/// As [`order_by_row`], over some of the table's rows (e.g. [`crate::JobTable::rows_from`]):
/// these rows, sorted ascending by `(priority, key, id)`, into `out`.
pub fn order_rows<'a>(
    rows: impl Iterator<Item = &'a JobRow> + Clone,
    buf: &mut KeyBuf,
    out: &mut Schedule,
    key: impl Fn(&JobRow) -> f64,
) {
    order_packed(
        rows.map(|r| (pack(r.priority, key(r), r.id), r.n_gpus)),
        buf,
        out,
    );
}

/// The entries `(packed key, GPUs)` in ascending key order into `out`.
#[inline]
fn order_packed<I>(items: I, buf: &mut KeyBuf, out: &mut Schedule)
where
    I: Iterator<Item = (u128, u32)> + Clone,
{
    // Keys usually come out of the table already in order (FIFO's arrival follows the id):
    // write them out as they come, checking the order on the way, and sort only when one is
    // out of order. The packed key is one integer, so the check and the sort compare one
    // number per pair, in the same order as `(priority, key.total_cmp, id)`.
    let start = out.entries.len();
    out.entries.reserve(items.size_hint().0);
    let mut prev = 0u128;
    for (k, n) in items.clone() {
        if k < prev {
            out.entries.truncate(start);
            buf.items.clear();
            buf.items.extend(items);
            sort_from_last(buf);
            for &(k, n) in &buf.items {
                out.push(JobId(k as u32), n);
            }
            return;
        }
        prev = k;
        out.push(JobId(k as u32), n);
    }
    // In the table's order: nothing to remember.
    buf.last.clear();
}

/// Sort `buf.items` ascending by packed key, starting from the last sort's order: the entries
/// whose ids the last sort had are laid out in its order, the others follow in theirs, and a
/// run-adaptive sort (the standard library's stable sort; with unique keys, stability changes
/// nothing) merges what moved. Remembers the order for the next call.
fn sort_from_last(buf: &mut KeyBuf) {
    let KeyBuf {
        items,
        last,
        at,
        laid,
    } = buf;
    let max_id = items.iter().map(|e| e.0 as u32).max().unwrap_or(0);
    if max_id >= DENSE_IDS && max_id as usize >= SPREAD * items.len() {
        items.sort_unstable_by_key(|e| e.0);
        last.clear();
        return;
    }
    if at.len() <= max_id as usize {
        at.resize(max_id as usize + 1, u32::MAX);
    }
    laid.clear();
    laid.resize(last.len(), None);
    // The entries that are new to the order go to the end of `items`, in their own order.
    let mut new = 0;
    for i in 0..items.len() {
        let e = items[i];
        let id = e.0 as u32;
        let p = at[id as usize] as usize;
        if p < last.len() && last[p] == id {
            laid[p] = Some(e);
        } else {
            items[new] = e;
            new += 1;
        }
    }
    items.truncate(new);
    items.splice(0..0, laid.iter().flatten().copied());
    items.sort_by_key(|e| e.0);
    last.clear();
    last.extend(items.iter().map(|e| e.0 as u32));
    for (p, &id) in last.iter().enumerate() {
        at[id as usize] = p as u32;
    }
}

/// `(priority, key, id)` as one integer whose unsigned order is the order of the priority,
/// then the key by `f64::total_cmp`, then the id.
#[inline]
fn pack(priority: u32, key: f64, id: JobId) -> u128 {
    // `f64::total_cmp`'s order as an unsigned integer: flip the magnitude bits of negative
    // numbers (as `total_cmp` does), then the sign bit.
    let bits = key.to_bits() as i64;
    let total = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
    let ordered = (total as u64) ^ (1 << 63);
    (u128::from(priority) << 96) | (u128::from(ordered) << 32) | u128::from(id.0)
}

/// A key made of a small integer class and a float, compared class first, then the float with
/// `f64::total_cmp`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassKey {
    /// Compared first (e.g. a Tiresias queue).
    pub class: u64,
    /// Compared second, with `f64::total_cmp`.
    pub value: f64,
}

impl ClassKey {
    /// Compare class first, then value (with `f64::total_cmp`, so NaN cannot break a sort).
    pub fn total_cmp(&self, other: &Self) -> Ordering {
        self.class
            .cmp(&other.class)
            .then(self.value.total_cmp(&other.value))
    }
}

/// Reusable buffer for [`order_by_class_key`].
#[derive(Clone, Debug, Default)]
pub struct ClassKeyBuf(Vec<(u32, ClassKey, JobId, u32)>);

impl ClassKeyBuf {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }
}

/// As [`order_by_key`], with a two-level key: ascending `(priority, class, value, id)`.
pub fn order_by_class_key(
    ctx: &Ctx<'_>,
    buf: &mut ClassKeyBuf,
    out: &mut Schedule,
    mut key: impl FnMut(&Job) -> ClassKey,
) {
    let buf = &mut buf.0;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of a queue whose keys change a little (as LAS's do), with jobs leaving and
    /// arriving, sometimes in the table's order, ids dense and sparse: one buffer across the
    /// rounds orders each exactly as a fresh sort does.
    #[test]
    fn a_remembered_order_never_changes_the_result() {
        let mut rng = crate::Seed(7).stream("order");
        for (ids_spread, rounds) in [(1u64, 300), (3, 200), (1 << 23, 50)] {
            let mut buf = KeyBuf::new();
            let mut next_id = 0u64;
            // (id, key, priority, GPUs), in id order as a table holds them.
            let mut jobs: Vec<(u32, f64, u32, u32)> = Vec::new();
            for round in 0..rounds {
                for _ in 0..rng.below(8) {
                    next_id += 1 + rng.below(ids_spread);
                    let key = if rng.below(4) == 0 {
                        0.0
                    } else {
                        rng.next_f64() * 100.0
                    };
                    jobs.push((next_id as u32, key, 0, 1 + rng.below(8) as u32));
                }
                jobs.retain(|_| rng.below(20) != 0);
                for j in jobs.iter_mut() {
                    match rng.below(10) {
                        0 => j.1 += rng.next_f64() * 30.0,
                        1 => j.1 -= rng.next_f64(),
                        2 if rng.below(10) == 0 => j.2 = 1,
                        _ => {}
                    }
                }
                if round % 50 == 49 {
                    // A round in the table's order: the fast path, which forgets the order.
                    for (i, j) in jobs.iter_mut().enumerate() {
                        (j.1, j.2) = (i as f64, 0);
                    }
                }
                let items = jobs.iter().map(|&(id, k, p, n)| (pack(p, k, JobId(id)), n));
                let mut out = Schedule::default();
                order_packed(items.clone(), &mut buf, &mut out);
                let mut want: Vec<(u128, u32)> = items.collect();
                want.sort_by_key(|e| e.0);
                let want: Vec<(JobId, u32)> =
                    want.iter().map(|&(k, n)| (JobId(k as u32), n)).collect();
                let got: Vec<(JobId, u32)> =
                    out.entries.iter().map(|a| (a.job, a.n_gpus)).collect();
                assert_eq!(got, want, "ids spread {ids_spread}, round {round}");
            }
        }
    }

    #[test]
    fn the_packed_key_orders_as_priority_then_total_cmp_then_id() {
        let keys = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            1e-310,
            3.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        let mut all = Vec::new();
        for p in [1u32, 999] {
            for &k in &keys {
                for id in [0u32, 7, u32::MAX] {
                    all.push((p, k, JobId(id)));
                }
            }
        }
        for a in &all {
            for b in &all {
                let want = a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2));
                assert_eq!(
                    pack(a.0, a.1, a.2).cmp(&pack(b.0, b.1, b.2)),
                    want,
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
