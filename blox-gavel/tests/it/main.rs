//! blox-gavel's tests through its public API, in one binary: GAVEL-GENERATED's check values
//! and test vectors (`generated`), the space-sharing policies (`packed`) and the policies and
//! mechanism on hand-made cases (`policies`). The solvers' own tests are unit tests beside them.

mod generated;
mod packed;
mod policies;
