//! # blox-workload
//!
//! Readers of published deep-learning cluster traces into [`blox_core::JobSpec`], synthetic
//! generators and a model zoo. (Being built.)
