//! Writing to the terminal without ever panicking: `println!`/`eprintln!` panic when the
//! stream is gone (a closed terminal gives EIO, a closed pipe EPIPE), and a run must end
//! cleanly then, with its state saved. Errors are ignored: nobody is left to read them.
use std::io::Write;

/// Write `text` to stdout and flush.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// Write `text` and a newline to stdout.
pub fn out_line(text: &str) {
    out(&format!("{text}\n"));
}

/// Write `text` to stderr.
pub fn err(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes());
    let _ = e.flush();
}

/// Write `text` and a newline to stderr.
pub fn err_line(text: &str) {
    err(&format!("{text}\n"));
}

/// For commands that only print: a closed stdout (`| head`) ends the process quietly, by
/// SIGPIPE's default action, as it does for `cat` (Rust ignores SIGPIPE, and every write
/// would then fail or panic instead). The agent itself keeps its own handler: it must save
/// its state first.
pub fn end_quietly_on_closed_pipe() {
    // SAFETY: restoring a signal's default disposition has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
