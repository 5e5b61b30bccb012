//! The `bash-agent` binary: all logic lives in the library (`app::run`).
fn main() {
    std::process::exit(bash_agent::app::run());
}
