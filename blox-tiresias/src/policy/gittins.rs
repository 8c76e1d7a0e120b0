//! The Gittins-index table of Tiresias' `dlas-gpu-gittins` scheme, computed as the original
//! simulator computes it (TIRESIAS-SEMANTICS.md §6; `run_sim.py: parse_job_dist`,
//! `cal_r_gittins_index`, `get_gittins_index`), including its Python 2 integer division and
//! rounding.

use std::fmt;

/// The static Gittins quantum Δ of the shipped code (`jobs.py: gittins_delta`), in GPU-seconds.
pub const TIRESIAS_GITTINS_DELTA: i64 = 3250;

/// The name of the job-size sample the original always reads (from its working directory).
pub const TIRESIAS_GITTINS_SAMPLE: &str = "yarn-gput1000.csv";

/// A bad Gittins sample file: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GittinsError {
    /// 1-based line number of the offending line (0 for the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GittinsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for GittinsError {}

/// The Gittins index as a step function of attained GPU-seconds, over a fixed sample of job
/// sizes.
///
/// Tiresias does not learn the distribution from the jobs it runs: it reads a sample of 1,001
/// YARN job sizes once and tabulates the index at every sample value minus one. A job's index
/// is then the entry of the first sample value above its attained service, which makes the
/// index constant between consecutive distinct sample values, and 0 beyond the largest.
#[derive(Clone, Debug, PartialEq)]
pub struct GittinsTable {
    /// The sample sorted ascending (duplicates kept), without the sentinel.
    sizes: Vec<i64>,
    /// `entries[i]` = raw index at `sizes[i] − 1`; one more entry (0.0) for the sentinel.
    entries: Vec<f64>,
}

impl GittinsTable {
    /// Tabulate the index over `samples` (GPU-seconds, any order) with quantum `delta`.
    /// Errors if the sample is empty or `delta` is negative.
    pub fn new(mut samples: Vec<i64>, delta: i64) -> Result<Self, GittinsError> {
        if samples.is_empty() {
            return Err(GittinsError {
                line: 0,
                message: "the Gittins sample has no job sizes".into(),
            });
        }
        if delta < 0 {
            return Err(GittinsError {
                line: 0,
                message: format!("the Gittins quantum must be ≥ 0, not {delta}"),
            });
        }
        samples.sort_unstable();
        let mut entries: Vec<f64> = samples
            .iter()
            .map(|&v| raw_index(&samples, v - 1, delta))
            .collect();
        entries.push(0.0);
        Ok(GittinsTable {
            sizes: samples,
            entries,
        })
    }

    /// Read the sample from CSV text with a `duration` column (the format of
    /// `yarn-gput1000.csv`): every value must be an integer, as the original converts them
    /// with `int()`.
    pub fn parse_csv(text: &str, delta: i64) -> Result<Self, GittinsError> {
        let mut lines = text.lines().enumerate();
        let header = loop {
            match lines.next() {
                Some((_, l)) if l.trim().is_empty() => continue,
                Some((_, l)) => break l,
                None => {
                    return Err(GittinsError {
                        line: 0,
                        message: "the Gittins sample file is empty".into(),
                    })
                }
            }
        };
        let col = header
            .trim_end_matches('\r')
            .split(',')
            .position(|h| h.trim() == "duration")
            .ok_or_else(|| GittinsError {
                line: 1,
                message: "the header has no `duration` column".into(),
            })?;
        let mut samples = Vec::new();
        for (i, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let field = line.split(',').nth(col).unwrap_or("").trim();
            let v: i64 = field.parse().map_err(|_| GittinsError {
                line: i + 1,
                message: format!("field `duration`: `{field}` is not an integer"),
            })?;
            samples.push(v);
        }
        Self::new(samples, delta)
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Whether the table has no samples (never true for a built table).
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// The index of a job that has attained `a` GPU-seconds (`get_gittins_index`): 0 beyond
    /// the largest sample, else the entry of the first sample value greater than `a`.
    pub fn index(&self, a: i64) -> f64 {
        let last = self.sizes[self.sizes.len() - 1];
        if a > last {
            return 0.0;
        }
        let pos = self.sizes.partition_point(|&v| v <= a);
        self.entries[pos]
    }
}

/// `cal_r_gittins_index(data, a)` over the sorted sample `d`.
fn raw_index(d: &[i64], a: i64, delta: i64) -> f64 {
    let n = d.len();
    let last = d[n - 1];
    if a > last - 1 {
        return 0.0;
    }
    let i = d.partition_point(|&v| v <= a);
    let next = a + delta;
    let k = if next > last - 1 {
        n - 1
    } else {
        d.partition_point(|&v| v <= next)
    };
    let p = py2_round((k as f64 - i as f64) / (n - i) as f64, 5);
    let sum: i64 = d[i..k].iter().sum::<i64>() + delta * (n - k) as i64;
    // Python 2: int / int floors.
    let e = py2_round(sum.div_euclid((n - i) as i64) as f64, 5);
    py2_round(p * 1_000_000.0 / e, 4)
}

/// Python 2.7's `round(x, ndigits)` on a float: the double's exact decimal value rounded to
/// `ndigits` decimals, exact halves away from zero, returned as the nearest double.
pub fn py2_round(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // 1,100 decimals hold the exact expansion of every finite double.
    let exact = format!("{:.1100}", x.abs());
    let (int_part, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let mut digits: Vec<u8> = int_part.bytes().chain(frac.bytes().take(ndigits)).collect();
    let rest = &frac.as_bytes()[ndigits.min(frac.len())..];
    let round_up = match rest.first() {
        Some(&c) if c > b'5' => true,
        Some(&b'5') => true, // an exact half, or above it: both round away from zero
        _ => false,
    };
    if round_up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - ndigits;
    let text = format!(
        "{}{}.{}",
        if x < 0.0 { "-" } else { "" },
        std::str::from_utf8(&digits[..split]).unwrap_or("0"),
        std::str::from_utf8(&digits[split..]).unwrap_or("0")
    );
    text.parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python2_rounding_of_exact_values() {
        assert_eq!(py2_round(0.125, 2), 0.13); // exact half: away from zero
        assert_eq!(py2_round(2.675, 2), 2.67); // the double lies below the half
        assert_eq!(py2_round(-0.125, 2), -0.13);
        assert_eq!(py2_round(0.5, 0), 1.0);
        assert_eq!(py2_round(2.5, 0), 3.0);
        assert_eq!(py2_round(9.99996, 4), 10.0);
        assert_eq!(py2_round(1.0 / 3.0, 5), 0.33333);
        assert_eq!(py2_round(1234.0, 5), 1234.0);
    }

    #[test]
    fn index_is_a_step_function_of_the_sample() {
        let t = GittinsTable::new(vec![300, 100, 200, 200], 150).unwrap();
        // a < 100 all share the first entry; 100..=199 the entry of 200; beyond 300, 0.
        assert_eq!(t.index(0), t.index(99));
        assert_eq!(t.index(100), t.index(199));
        assert_ne!(t.index(99), t.index(100));
        assert_eq!(t.index(301), 0.0);
        // At a = 299 (last − 1) the raw index is computed, but with k = n − 1 = i its chance
        // of finishing is 0; at 300 the sentinel.
        assert!(t.index(150) > 0.0);
        assert_eq!(t.index(299), 0.0);
        assert_eq!(t.index(300), 0.0);
    }

    #[test]
    fn raw_index_by_hand() {
        // d = [100, 200, 300], Δ = 150, a = 99: i = 0; a+Δ = 249 ≤ 299 so k = first > 249 = 2.
        // p = 2/3 → 0.66667; S = 100 + 200 + 150·1 = 450; e = 450 // 3 = 150;
        // index = round(0.66667e6 / 150, 4) = 4444.4667.
        let d = [100, 200, 300];
        assert_eq!(raw_index(&d, 99, 150), py2_round(666_670.0 / 150.0, 4));
        assert_eq!(raw_index(&d, 99, 150), 4444.4667);
        // a = 199: i = 1; a+Δ = 349 > 299 so k = n − 1 = 2: p = 1/2, S = 200 + 150 = 350,
        // e = 175, index = 500000 / 175 = 2857.1429 (rounded).
        assert_eq!(raw_index(&d, 199, 150), 2857.1429);
    }

    #[test]
    fn shipped_sample_parses() {
        let text = "duration\r\n121\r\n122\r\n500\r\n";
        let t = GittinsTable::parse_csv(text, TIRESIAS_GITTINS_DELTA).unwrap();
        assert_eq!(t.len(), 3);
        let bad = GittinsTable::parse_csv("duration\n12.5\n", 3250).unwrap_err();
        assert_eq!(bad.line, 2);
        assert!(bad.to_string().contains("12.5"));
        assert!(GittinsTable::parse_csv("size\n1\n", 3250).is_err());
    }
}
