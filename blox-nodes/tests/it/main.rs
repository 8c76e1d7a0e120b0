//! Integration tests of blox-nodes.

mod nodes;
