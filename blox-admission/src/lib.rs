//! # blox-admission
//!
//! Admission policies: which arrived jobs enter the job table, and when.
//!
//! | component | what it does | cost per round | source |
//! |---|---|---|---|
//! | [`AcceptAll`] | admits every job the round it is first seen | O(arrivals) | Blox `accept_all.py` |
//! | [`LoadBased`] | admits oldest-first while table demand ≤ factor × GPUs (overshoots by one job) | O(admitted) | Blox `load_based_accept.py` (EuroSys'24, Fig. 12) |
//! | [`QueueCap`] | admits oldest-first while fewer than N admitted jobs wait; holds or rejects the rest | O(n) | — |
//!
//! [`AdmissionConfig`] names them for files and the command line.
//!
//! ```
//! use blox_admission::{AdmissionConfig, LoadBased};
//!
//! let cfg: AdmissionConfig = "load-based:1.2".parse().unwrap();
//! assert_eq!(cfg, AdmissionConfig::LoadBased { factor: 1.2 });
//! assert_eq!(cfg.build().unwrap().name(), "load-based:1.2");
//! assert!(LoadBased::new(-1.0).is_err());
//! assert!("load-bsed:1.2".parse::<AdmissionConfig>().unwrap_err().0.contains("unknown admission"));
//! let cap: AdmissionConfig = "queue-cap:limit=50,mode=reject".parse().unwrap();
//! assert_eq!(cap.to_string(), "queue-cap:limit=50,mode=reject");
//! ```

mod accept_all;
mod config;
mod load_based;
mod queue_cap;

pub use accept_all::AcceptAll;
pub use config::AdmissionConfig;
pub use load_based::LoadBased;
pub use queue_cap::{Overflow, QueueCap};
