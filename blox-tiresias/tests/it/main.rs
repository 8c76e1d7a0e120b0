//! blox-tiresias's tests through its public API, in one binary: `event_loops` holds
//! Tiresias' self-contained event loops, written as the original runs them (the oracle the
//! engine path and the specification's test vectors are checked against).

mod event_loops;
mod placement_spec;
