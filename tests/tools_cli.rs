//! The hidden `bash-agent tool NAME JSON` subcommand, driven through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::process::Command;

fn tool(cwd: &std::path::Path, home: &std::path::Path, name: &str, input: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bash-agent"))
        .args(["tool", name, input])
        .current_dir(cwd)
        .env("BASH_AGENT_HOME", home)
        .env_remove("BASH_AGENT_BASH_MODE")
        .output()
        .expect("run bash-agent");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn tool_subcommand_prints_display_and_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    let home = cwd.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(cwd.join("notes.txt"), "alpha\nbeta\n").unwrap();
    let (code, out) = tool(&cwd, &home, "Read", r#"{"path":"notes.txt"}"#);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Read(notes.txt) [2 lines, 11 bytes]\n     1\talpha\n     2\tbeta\n"
    );
    let (code, out) = tool(&cwd, &home, "Grep", r#"{"pattern":"beta"}"#);
    assert_eq!((code, out.as_str()), (0, "./notes.txt\n2:beta\n"));
    let (code, out) = tool(&cwd, &home, "Read", r#"{"path":"missing"}"#);
    assert_eq!(
        (code, out.as_str()),
        (1, "Error: file not found: missing\n")
    );
    let (code, _) = tool(&cwd, &home, "Read", "{not json");
    assert_ne!(code, 0);
    // No session folder is left behind in the storage root.
    assert!(!home.join(".bash-agent/projects").exists());
}
