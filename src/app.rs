//! The entry point: parse the command line, run the command, and turn its outcome into an
//! exit code (0 success, 1 runtime failure, 2 usage error, 130 interrupted) and a message.
//! Nothing imports this module; everything below it returns `error::Result`.
use crate::cli::Cli;
use crate::error::{Error, EXIT_OK, EXIT_USAGE};

/// Print `Error: <msg>` to stderr, red on a terminal without NO_COLOR.
fn print_error(msg: &str) {
    use std::io::IsTerminal;
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if color {
        crate::util::say::err_line(&format!("\x1b[31mError: {msg}\x1b[0m"));
    } else {
        crate::util::say::err_line(&format!("Error: {msg}"));
    }
}

/// The command line as text. Arguments are checked for UTF-8 before clap sees them, so a lossy
/// copy is only ever used for hints.
fn args_lossy() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Every argument must be UTF-8 text (prompts, names and paths are stored in JSON lines). The
/// first that is not is named, with its bad bytes as `\xNN`, and the run is a usage error.
fn check_utf8() -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    for (i, a) in args.iter().enumerate() {
        if a.to_str().is_some() {
            continue;
        }
        let shown = escape_invalid(a.as_bytes());
        let what = match i
            .checked_sub(1)
            .and_then(|p| args.get(p))
            .and_then(|p| p.to_str())
        {
            Some(flag) if flag.starts_with('-') && flag.len() > 1 && !flag.contains('=') => {
                format!("the value of {flag}")
            }
            _ => format!("argument {}", i + 1),
        };
        return Err(format!(
            "{what} is not valid UTF-8: \"{shown}\" (every argument must be UTF-8 text)"
        ));
    }
    Ok(())
}

/// `bytes` as text with each byte of an invalid sequence written `\xNN`.
fn escape_invalid(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// `Cli::try_parse` without dropping the command tree: clap builds every flag and
/// subcommand to parse a line, and freeing that tree again cost a one-shot run about
/// 300,000 instructions; the process is about to exit or run for long, so the tree is left
/// to the exit (docs/performance.md, "Start-up"). A line that names no subcommand and asks
/// no help is parsed by the smaller `CliNoSubcommand` first (the same flags); any error
/// there is left to the full parse, so every message is the full command's.
fn try_parse() -> Result<Cli, clap::Error> {
    use crate::cli::CliNoSubcommand;
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let text: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    if !crate::cli::needs_full_parse(&text) {
        if let Ok(c) = parse_kept::<CliNoSubcommand>(&args) {
            return Ok(c.into());
        }
    }
    let cli = match parse_kept::<Cli>(&args) {
        Ok(cli) => cli,
        Err(e) => return Err(subcommand_help(e, &args)),
    };
    match subcommand_taken_as_prompt(&cli, &args) {
        Some(moved) => parse_kept::<Cli>(&moved),
        None => Ok(cli),
    }
}

/// `bash-agent --base-url X compact --help`: the parent's parse stops at `--help` before the
/// subcommand is found (the word is the parent's prompt there), so clap's answer was the main
/// help. Parsed without its help flags, a line whose prompt is a subcommand's name is moved
/// as [`subcommand_taken_as_prompt`] does, and that line's help (the subcommand's) is the
/// answer. Any other error is returned as it was.
fn subcommand_help(e: clap::Error, args: &[std::ffi::OsString]) -> clap::Error {
    if e.kind() != clap::error::ErrorKind::DisplayHelp {
        return e;
    }
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let stripped: Vec<std::ffi::OsString> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| *i >= end || (*a != "--help" && *a != "-h"))
        .map(|(_, a)| a.clone())
        .collect();
    let moved = parse_kept::<Cli>(&stripped)
        .ok()
        .and_then(|cli| subcommand_taken_as_prompt(&cli, args));
    match moved.map(|m| parse_kept::<Cli>(&m)) {
        Some(Err(help)) if help.kind() == clap::error::ErrorKind::DisplayHelp => help,
        _ => e,
    }
}

/// `bash-agent --base-url X compact`: clap takes a word after the parent's own flags as the
/// prompt, so the subcommand went to the model as a one-word prompt. A prompt that is exactly
/// a subcommand's name (and not written after `--`) runs that subcommand: the line is parsed
/// again with the name moved to the front (the flags before it are global). Returns that line.
fn subcommand_taken_as_prompt(
    cli: &Cli,
    args: &[std::ffi::OsString],
) -> Option<Vec<std::ffi::OsString>> {
    let p = cli.prompt.as_deref()?;
    if cli.command.is_some() || !crate::cli::SUBCOMMAND_NAMES.contains(&p) {
        return None;
    }
    let end = args
        .iter()
        .skip(1)
        .position(|a| a == "--")
        .map_or(args.len(), |i| i + 1);
    // The prompt is the last free word: a flag's value that happens to equal the name
    // (`-m init init`) comes before it.
    let at = (1..end).rev().find(|&i| args[i] == p)?;
    let mut moved = Vec::with_capacity(args.len());
    moved.push(args[0].clone());
    moved.push(args[at].clone());
    moved.extend(
        args.iter()
            .enumerate()
            .filter(|(i, _)| *i != 0 && *i != at)
            .map(|(_, a)| a.clone()),
    );
    Some(moved)
}

/// Parse `args` as `P`, leaving clap's command tree allocated (see `try_parse`).
fn parse_kept<P: clap::Parser>(args: &[std::ffi::OsString]) -> Result<P, clap::Error> {
    let mut cmd = P::command();
    let parsed = cmd
        .try_get_matches_from_mut(args.iter())
        .and_then(|mut m| P::from_arg_matches_mut(&mut m).map_err(|e| e.format(&mut P::command())));
    std::mem::forget(cmd);
    parsed
}

fn parse() -> Result<Cli, i32> {
    if let Err(msg) = check_utf8() {
        print_error(&msg);
        crate::cmd::agent::parse_failure(&args_lossy(), &msg);
        return Err(EXIT_USAGE);
    }
    match try_parse() {
        Ok(c) => {
            let args = args_lossy();
            let words = args.get(1..).unwrap_or_default();
            match crate::cmd::peer_words::refusal(c.prompt.as_deref(), words) {
                Some(msg) => {
                    print_error(&msg);
                    crate::cmd::agent::parse_failure(&args, &msg);
                    Err(EXIT_USAGE)
                }
                None => Ok(c),
            }
        }
        Err(e) => {
            use clap::error::{ContextKind, ErrorKind};
            // `--inject --help`: a flag that wants a value, asked for help. Show the help
            // (which documents the flag) rather than "a value is required".
            if e.kind() != ErrorKind::DisplayHelp
                && args_lossy()
                    .iter()
                    .skip(1)
                    .any(|a| a == "--help" || a == "-h")
            {
                use clap::CommandFactory;
                let _ = Cli::command().print_long_help();
                return Err(EXIT_OK);
            }
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
                    // A typo keeps clap's suggestion, in clap's words.
                    if let Some(s) = e.get(ContextKind::SuggestedArg) {
                        eprintln!("  tip: a similar argument exists: '{s}'");
                    }
                    if let Some(hint) = crate::cmd::agent::quoting_hint(&args_lossy(), &arg) {
                        eprintln!("{hint}");
                    }
                    crate::cmd::agent::parse_failure(&args_lossy(), &msg);
                    Err(EXIT_USAGE)
                }
                ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
                    let ctx = |k| e.get(k).map(|v| v.to_string()).unwrap_or_default();
                    let valid = match e.get(ContextKind::ValidValue) {
                        Some(clap::error::ContextValue::Strings(v)) => v.clone(),
                        _ => Vec::new(),
                    };
                    let msg = crate::config::invalid_flag_message(
                        &ctx(ContextKind::InvalidArg),
                        &ctx(ContextKind::InvalidValue),
                        &valid,
                    );
                    print_error(&msg);
                    crate::cmd::agent::parse_failure(&args_lossy(), &msg);
                    Err(EXIT_USAGE)
                }
                _ => {
                    let _ = e.print();
                    let arg = e
                        .get(ContextKind::InvalidSubcommand)
                        .map(|v| v.to_string())
                        .unwrap_or_default();
                    if let Some(hint) = crate::cmd::agent::quoting_hint(&args_lossy(), &arg) {
                        eprintln!("{hint}");
                    }
                    let msg = e.kind().as_str().unwrap_or("invalid command line");
                    crate::cmd::agent::parse_failure(&args_lossy(), msg);
                    Err(EXIT_USAGE)
                }
            }
        }
    }
}

/// A panic must never leave the terminal in raw mode: the hook restores the terminal's
/// settings as they were at start, then reports in one line. (Every session write is whole
/// lines or an atomic rename, so what was saved stays valid.) Tests assert no panic happens.
fn install_panic_hook() {
    use std::io::IsTerminal;
    let saved = if std::io::stdin().is_terminal() {
        nix::sys::termios::tcgetattr(std::io::stdin()).ok()
    } else {
        None
    };
    let saved = std::sync::Mutex::new(saved);
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(guard) = saved.lock() {
            if let Some(t) = guard.as_ref() {
                let _ = nix::sys::termios::tcsetattr(
                    std::io::stdin(),
                    nix::sys::termios::SetArg::TCSANOW,
                    t,
                );
            }
        }
        crate::util::say::err_line(&format!(
            "bash-agent: internal error: {info} (the session's files are consistent; please report this)"
        ));
    }));
}

/// Entry point; returns the exit code.
pub fn run() -> i32 {
    // A background task's reporter is this binary too (hidden, not a command).
    if let Some(code) = crate::agent::task_reporter::main_if_reporter() {
        return code;
    }
    install_panic_hook();
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
