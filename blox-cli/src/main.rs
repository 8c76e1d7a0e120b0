//! The `blox-sim` command-line program. Run `blox-sim --help`.

fn main() -> std::process::ExitCode {
    blox_cli::main()
}
