//! The `blox` preset: which component a stock name builds under Blox's semantics.
//!
//! | name | builds |
//! |---|---|
//! | `las` | [`BloxLas`] (attained wall-clock seconds, whatever the GPU count) |
//! | `tiresias` | [`BloxLas`] (Blox's Tiresias is exactly its LAS); no parameters |
//! | `srtf` | [`BloxSrtf`] (work − attained wall-clock service) |
//! | `optimus` | [`BloxOptimus`] (SRTF order, per-load speed-up); no parameters |
//! | `scattered` | [`BloxScattered`] (Blox's Place, overshoot and failed-preemption quirks) |
//! | every other name | the stock component |

use crate::{BloxLas, BloxOptimus, BloxScattered, BloxSrtf};
use blox_core::{BoxPlacement, BoxScheduling, BoxThroughput, ConfigError, ConstantSpeed};
use blox_policies::{PolicyConfig, PolicyEnv};

/// The scheduling policy `p` names under Blox's semantics.
///
/// # Errors
///
/// Parameters on a name Blox has its own version of (its versions take none), Blox's Optimus
/// without a load, and the stock configuration's own errors.
pub fn policy(p: &PolicyConfig, env: &PolicyEnv) -> Result<BoxScheduling, ConfigError> {
    blox_policy(p, env)
}

/// Blox's `Place`, the preset's `scattered`.
pub fn scattered() -> BoxPlacement {
    Box::new(BloxScattered::new())
}

/// The constant progress factor `p` implies under Blox's semantics: Blox's Optimus speed-up,
/// 1.0 for every other policy.
///
/// # Errors
///
/// Blox's Optimus without a load in its table.
pub fn speed_factor(p: &PolicyConfig, env: &PolicyEnv) -> Result<f64, ConfigError> {
    match p {
        PolicyConfig::Optimus => Ok(blox_optimus(env)?.factor()),
        _ => Ok(1.0),
    }
}

/// The throughput model of Blox's Optimus (`--throughput policy`).
///
/// # Errors
///
/// Parameters (Blox's Optimus takes none), or a load outside its table.
pub fn throughput(p: &PolicyConfig, env: &PolicyEnv) -> Result<BoxThroughput, ConfigError> {
    match p {
        PolicyConfig::Optimus => Ok(Box::new(ConstantSpeed(blox_optimus(env)?.factor()))),
        PolicyConfig::OptimusWith(_) => Err(no_parameters(p)),
        other => other.throughput_model(env),
    }
}

fn blox_policy(p: &PolicyConfig, env: &PolicyEnv) -> Result<BoxScheduling, ConfigError> {
    Ok(match p {
        PolicyConfig::Las | PolicyConfig::Tiresias => Box::new(BloxLas::default()),
        PolicyConfig::Srtf => Box::new(BloxSrtf::default()),
        PolicyConfig::Optimus => Box::new(blox_optimus(env)?),
        PolicyConfig::TiresiasWith(_) | PolicyConfig::OptimusWith(_) => {
            return Err(no_parameters(p))
        }
        other => other.build(env)?,
    })
}

fn no_parameters(p: &PolicyConfig) -> ConfigError {
    ConfigError::new(format!(
        "policy `{p}`: in `blox` semantics `{}` is Blox's own and takes no parameters; its \
         parameters apply to `exact` semantics",
        p.as_str()
    ))
}

fn blox_optimus(env: &PolicyEnv) -> Result<BloxOptimus, ConfigError> {
    let load = env.load.ok_or_else(|| {
        ConfigError::new(
            "Blox's Optimus needs the workload's load (its speed-up table is keyed by load); \
             use the blox-default workload with --load",
        )
    })?;
    BloxOptimus::new(load)
}
