//! Integration tests of blox-metrics: the SVG plots as a reader sees them.

mod plots;
