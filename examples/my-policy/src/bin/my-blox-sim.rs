//! The whole `blox-sim` program with this crate's `srsf` policy added: usable in `run`,
//! `compare`, `sweep` and scenario files by its name.
//!
//! ```text
//! cargo run -p my-blox-policy --features cli --bin my-blox-sim -- compare --policy srsf,las
//! ```

use blox_cli::Registry;
use my_blox_policy::Srsf;

fn main() -> std::process::ExitCode {
    let registry = Registry::default().policy("srsf", |spec, _env| {
        spec.no_args("policy")?;
        Ok(Box::new(Srsf::default()))
    });
    blox_cli::main_with(registry)
}
