//! End-to-end scenario tests of the placement (being built).
