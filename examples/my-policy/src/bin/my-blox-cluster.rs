//! The whole `blox-cluster` program (real-cluster mode) with this crate's `srsf` policy added:
//! `serve --policy srsf` schedules real jobs with it.
//!
//! ```text
//! cargo run -p my-blox-policy --features cli --bin my-blox-cluster -- serve --nodes 1x2 --policy srsf
//! ```

use blox_scenario::Registry;
use my_blox_policy::Srsf;

fn main() -> std::process::ExitCode {
    let registry = Registry::default().policy("srsf", |spec, _env| {
        spec.no_args("policy")?;
        Ok(Box::new(Srsf::default()))
    });
    blox_cluster::main_with(registry)
}
