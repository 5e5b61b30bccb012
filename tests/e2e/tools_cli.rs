//! The hidden `bash-agent tool NAME JSON` subcommand, driven through the real binary.
use crate::support::Env;

fn tool(env: &Env, name: &str, input: &str) -> (i32, String) {
    let out = env.run(&["tool", name, input]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn tool_subcommand_prints_display_and_exit_status() {
    let env = Env::new();
    let (cwd, home) = (&env.cwd, &env.home);
    std::fs::write(cwd.join("notes.txt"), "alpha\nbeta\n").unwrap();
    let (code, out) = tool(&env, "Read", r#"{"path":"notes.txt"}"#);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Read(notes.txt) [2 lines, 11 bytes]\n     1\talpha\n     2\tbeta\n"
    );
    let (code, out) = tool(&env, "Grep", r#"{"pattern":"beta"}"#);
    assert_eq!((code, out.as_str()), (0, "./notes.txt\n2:beta\n"));
    let (code, out) = tool(&env, "Read", r#"{"path":"missing"}"#);
    assert_eq!(
        (code, out.as_str()),
        (1, "Error: file not found: missing\n")
    );
    let (code, _) = tool(&env, "Read", "{not json");
    assert_ne!(code, 0);
    // No session folder is left behind in the storage root.
    assert!(!home.join(".bash-agent/projects").exists());
}
