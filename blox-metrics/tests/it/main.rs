//! Integration tests of blox-metrics: the SVG plots as a reader sees them.

mod cluster;
mod compare;
mod fairness;
mod files;
mod plots;
mod series;
mod stats;
mod summary;
mod test_support;
mod write;
