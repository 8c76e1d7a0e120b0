//! End-to-end scenario tests of the policies (being built).
