//! The entry point: parse the command line, run the command, and turn its outcome into an
//! exit code (0 success, 1 runtime failure, 2 usage error, 130 interrupted) and a message.
//! Nothing imports this module; everything below it returns `error::Result`.
use crate::cli::Cli;
use crate::error::{Error, EXIT_OK, EXIT_USAGE};
use clap::Parser;

/// Print `Error: <msg>` to stderr, red on a terminal without NO_COLOR.
fn print_error(msg: &str) {
    use std::io::IsTerminal;
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if color {
        eprintln!("\x1b[31mError: {msg}\x1b[0m");
    } else {
        eprintln!("Error: {msg}");
    }
}

fn parse() -> Result<Cli, i32> {
    match Cli::try_parse() {
        Ok(c) => Ok(c),
        Err(e) => {
            use clap::error::{ContextKind, ErrorKind};
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    Err(EXIT_OK)
                }
                ErrorKind::UnknownArgument => {
                    let arg = e
                        .get(ContextKind::InvalidArg)
                        .map(|v| v.to_string())
                        .unwrap_or_default();
                    let msg = format!("Unknown option: {arg}");
                    print_error(&msg);
                    if let Some(hint) =
                        crate::cmd::agent::quoting_hint(&std::env::args().collect::<Vec<_>>(), &arg)
                    {
                        eprintln!("{hint}");
                    }
                    crate::cmd::agent::parse_failure(&std::env::args().collect::<Vec<_>>(), &msg);
                    Err(EXIT_USAGE)
                }
                _ => {
                    let _ = e.print();
                    let arg = e
                        .get(ContextKind::InvalidSubcommand)
                        .map(|v| v.to_string())
                        .unwrap_or_default();
                    if let Some(hint) =
                        crate::cmd::agent::quoting_hint(&std::env::args().collect::<Vec<_>>(), &arg)
                    {
                        eprintln!("{hint}");
                    }
                    let msg = e.kind().as_str().unwrap_or("invalid command line");
                    crate::cmd::agent::parse_failure(&std::env::args().collect::<Vec<_>>(), msg);
                    Err(EXIT_USAGE)
                }
            }
        }
    }
}

/// Entry point; returns the exit code.
pub fn run() -> i32 {
    let cli = match parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    match crate::cmd::dispatch(&cli) {
        Ok(()) => EXIT_OK,
        Err(e) => exit_code(&e),
    }
}

fn exit_code(e: &Error) -> i32 {
    if let Some(m) = e.message() {
        print_error(m);
    }
    e.kind().exit_code()
}
