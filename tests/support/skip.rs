//! Skips made visible. libtest has no "skipped" result: a test that returns early because a
//! tool is missing reports `ok`. Every such test calls [`skip`] (or [`have_tool`]), which
//! writes `SKIPPED: <suite>::<test>: <why>` straight to the terminal's stderr (past libtest's
//! output capture) and appends the same line to the file named by `BASH_AGENT_TEST_SKIPS`
//! (scripts/test.sh sets it and prints the list and its count at the end). With
//! `BASH_AGENT_TEST_NO_SKIP=1` a skip fails the test instead (for a machine that has
//! everything installed, like CI).
use std::io::Write;
use std::process::{Command, Stdio};

/// The running test's name (libtest names each test's thread after it), with its suite.
fn test_name() -> String {
    let suite = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| s.rsplit_once('-').map_or(s.clone(), |(a, _)| a.to_string()))
        .unwrap_or_default();
    let test = std::thread::current().name().unwrap_or("?").to_string();
    format!("{suite}::{test}")
}

/// Record that the running test (or the part of it named in `why`) did not run, and why.
pub fn skip(why: &str) {
    let line = format!("SKIPPED: {}: {why}\n", test_name());
    if std::env::var_os("BASH_AGENT_TEST_NO_SKIP").is_some_and(|v| v == "1") {
        panic!("{line}(BASH_AGENT_TEST_NO_SKIP=1 makes a skip a failure)");
    }
    // Not eprintln!: libtest captures that and shows it only for a failed test.
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os("BASH_AGENT_TEST_SKIPS") {
        // One write of the whole line with O_APPEND: tests of several processes share it.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// Whether `cmd args…` runs and exits 0 here; when not, the test is reported skipped
/// ("<cmd> not installed") and the caller returns.
pub fn have_tool(cmd: &str, args: &[&str]) -> bool {
    let ok = Command::new(cmd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip(&format!("{cmd} not installed"));
    }
    ok
}
