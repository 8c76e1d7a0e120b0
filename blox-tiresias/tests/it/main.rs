//! Integration tests of blox-tiresias: Tiresias' event loops against the test vectors of
//! TIRESIAS-SEMANTICS.md, and the engine compositions against the loops.

mod tiresias;
mod tiresias_vectors;
