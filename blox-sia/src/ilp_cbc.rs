//! Sia's integer program (SIA-SEMANTICS §6.6) solved by CBC, the original's solver, with the
//! model exactly as cvxpy 1.3.2 hands it to CBC through cylp (Appendix A). Feature `cbc`; it
//! links the system's Cbc (Debian's `coinor-libcbc-dev`, 2.10.8; the original's is the 2.10.12
//! bundled with cylp 0.93, which, linked here for a measurement, takes the same decisions on
//! the five test vectors) through the `coin_cbc` crate.
//!
//! The layout, which decides which of the tied optima CBC returns (§6.7, §13.1):
//! - columns: `X` in column-major order (`X[0,0], X[1,0], …, X[J−1,0], X[0,1], …`), all
//!   integer, unbounded (the bounds are rows);
//! - objective, minimised: `A[j,c] − λ_n` per column (the utilities as f32 widened to f64), the
//!   constant `λ_n·J` dropped; for `p > 0` (maximised by the original) the negation, as cvxpy
//!   turns a maximisation into the minimisation of the negated objective;
//! - rows in order: the equalities `X[j, prev(j)] = 1` of the pinned jobs (job order); then the
//!   inequalities `−X ≤ 0` (one per column, column order), `X ≤ 1` (the same), per type the GPUs
//!   used `≤` the type's capacity, per type `−used ≤ 0`, per job `Σ_c X[j,c] ≤ 1`;
//! - parameters: the relative gap 0.01 % (`allowablePercentageGap = 0.01`); log off. The
//!   original's `numberThreads = 8` is not passed: nearly every solve ends at the root node
//!   (§6.7), and a threaded search could make runs depend on scheduling (measured: passing
//!   `threads 8` to Debian's threaded Cbc changes no decision on the five test vectors);
//! - the answer: each entry rounded to an integer, per job the arg-max of its row (first
//!   index among equals), an all-zero row meaning no allocation (`sia.py`).

use std::ffi::CString;
use std::os::raw::c_int;

use coin_cbc::raw::{Model, Sense};

use crate::cluster::Config;
use crate::ilp::{check_rows, IlpError, IlpJob};

/// Solve the program with CBC: per job, the chosen configuration or `None`.
pub fn solve_cbc(
    jobs: &[IlpJob],
    configs: &[Config],
    capacity: &[u32],
    lambda: f64,
    minimize: bool,
) -> Result<Vec<Option<usize>>, IlpError> {
    check_rows(jobs, configs)?;
    if let Some(c) = configs.iter().find(|c| c.gpu_type >= capacity.len()) {
        return Err(IlpError(format!(
            "a configuration on GPU type {} of {}",
            c.gpu_type,
            capacity.len()
        )));
    }
    let nj = jobs.len();
    let nc = configs.len();
    if nj == 0 {
        return Ok(Vec::new());
    }
    let types = capacity.len();
    let n = nj * nc;
    let pinned: Vec<usize> = (0..nj).filter(|&j| jobs[j].pinned).collect();
    let n_eq = pinned.len();
    // Row offsets of the blocks.
    let neg_x = n_eq;
    let pos_x = neg_x + n;
    let use_row = pos_x + n;
    let neg_use = use_row + types;
    let job_row = neg_use + types;
    let rows = job_row + nj;
    let big = f64::MAX;
    let sign = if minimize { 1.0 } else { -1.0 };

    let mut start: Vec<c_int> = Vec::with_capacity(n + 1);
    let mut index: Vec<c_int> = Vec::with_capacity(n * 6);
    let mut value: Vec<f64> = Vec::with_capacity(n * 6);
    let mut obj = Vec::with_capacity(n);
    let row = |r: usize| -> Result<c_int, IlpError> {
        c_int::try_from(r).map_err(|_| IlpError("the program is too large for CBC".into()))
    };
    start.push(0);
    for (c, cfg) in configs.iter().enumerate() {
        for (j, job) in jobs.iter().enumerate() {
            let k = c * nj + j;
            if let Some(e) = pinned.iter().position(|&p| p == j) {
                if job.previous == Some(c) {
                    index.push(row(e)?);
                    value.push(1.0);
                }
            }
            let gpus = f64::from(cfg.gpus);
            for (r, v) in [
                (neg_x + k, -1.0),
                (pos_x + k, 1.0),
                (use_row + cfg.gpu_type, gpus),
                (neg_use + cfg.gpu_type, -gpus),
                (job_row + j, 1.0),
            ] {
                index.push(row(r)?);
                value.push(v);
            }
            start.push(row(index.len())?);
            obj.push(sign * (f64::from(job.utility[c]) - lambda));
        }
    }
    let mut lower = vec![-big; rows];
    let mut upper = vec![0.0; rows];
    for e in 0..n_eq {
        lower[e] = 1.0;
        upper[e] = 1.0;
    }
    upper[pos_x..pos_x + n].fill(1.0);
    for (t, &cap) in capacity.iter().enumerate() {
        upper[use_row + t] = f64::from(cap);
    }
    upper[job_row..job_row + nj].fill(1.0);

    let mut m = Model::new();
    m.load_problem(
        n,
        rows,
        &start,
        &index,
        &value,
        Some(&vec![-big; n]),
        Some(&vec![big; n]),
        Some(&obj),
        Some(&lower),
        Some(&upper),
    );
    for k in 0..n {
        m.set_integer(k);
    }
    m.set_obj_sense(Sense::Minimize);
    let param = |s: &str| CString::new(s).expect("no NUL");
    m.set_parameter(&param("ratioGap"), &param("0.0001"));
    m.set_parameter(&param("log"), &param("0"));
    m.set_log_level(0);
    m.solve();
    if m.is_proven_infeasible() {
        return Err(IlpError(
            "infeasible: the pinned jobs need more GPUs of a type than it has".into(),
        ));
    }
    if !m.is_proven_optimal() {
        return Err(IlpError(format!(
            "CBC stopped without an optimal solution ({:?}, {:?})",
            m.status(),
            m.secondary_status()
        )));
    }
    let x = m.col_solution();
    let out = (0..nj)
        .map(|j| {
            let mut best: Option<(usize, f64)> = None;
            for c in 0..nc {
                let v = x[c * nj + j].round();
                if best.map_or(true, |(_, b)| v > b) {
                    best = Some((c, v));
                }
            }
            best.filter(|&(_, v)| v != 0.0).map(|(c, _)| c)
        })
        .collect();
    Ok(out)
}
