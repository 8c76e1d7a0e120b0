//! Integration tests of blox-metrics: the SVG plots as a reader sees them.

mod cluster;
mod plots;
mod series;
mod stats;
mod write;
