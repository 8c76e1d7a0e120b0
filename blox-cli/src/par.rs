//! The commands' parallel runs (`sweep`, a Slurm task, `bench`'s Figure 6 sweep) on scoped
//! threads of the standard library: a sweep is tens to thousands of independent runs of
//! seconds each, which need no work-stealing pool (rayon and its crossbeam stack were a
//! twentieth of the program's cold build).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Every core: the worker count when none is given.
pub(crate) fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` over `items` on `threads` workers (the calling thread is one of them), results in the
/// items' order. A worker takes the next item not yet taken whenever it finishes one, so long
/// and short runs share the workers as they come. A panic in `f` is raised again here once
/// every worker has stopped.
pub(crate) fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> std::io::Result<Vec<R>> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    std::thread::scope(|s| {
        for _ in 1..threads.min(items.len()) {
            std::thread::Builder::new().spawn_scoped(s, work)?;
        }
        work();
        Ok::<(), std::io::Error>(())
    })?;
    Ok(slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item ran")
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn results_come_in_the_items_order_on_any_number_of_workers() {
        let items: Vec<u64> = (0..100).collect();
        for threads in [1, 2, 3, 8, 200] {
            let out = par_map(&items, threads, |x| x * x).unwrap();
            assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
        assert!(par_map(&[] as &[u8], 4, |x| *x).unwrap().is_empty());
    }
}
