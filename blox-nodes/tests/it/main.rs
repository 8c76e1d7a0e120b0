//! Integration tests of blox-nodes.

mod checkpoint;
mod nodes;
