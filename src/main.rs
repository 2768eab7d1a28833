//! The `sightline` binary: everything happens in [`sightline::cli`].

fn main() -> std::process::ExitCode {
    sightline::cli::main()
}
