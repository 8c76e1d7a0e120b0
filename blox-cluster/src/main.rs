//! The `blox-cluster` program (see [`blox_cluster::main_with`] to run it with your own
//! components).

fn main() -> std::process::ExitCode {
    blox_cluster::main()
}
