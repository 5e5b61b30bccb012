//! Issue 42, items 3 and 4: names from files printed with their control characters escaped
//! (the trust note, `trust --list`), and `trust /` or `trust ~` refused (docs/sandbox.md,
//! "Trust").
use crate::support::*;

fn user_entries(env: &Env) -> serde_json::Value {
    std::fs::read_to_string(env.home.join(".bash-agent/settings.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .map(|v| v["trusted_folders"].clone())
        .unwrap_or(serde_json::Value::Null)
}

#[test]
fn item3_folder_and_server_names_are_printed_escaped() {
    let env = Env::new();
    // A folder whose name would forge a second `trust --list` entry and clear the screen.
    let evil = env.other_cwd("a\ntrusted\t/etc\x1b[2J");
    expect_code(&env.run(&["trust", evil.to_str().unwrap()]), 0);
    let list = stdout(&env.run(&["trust", "--list"]));
    assert_eq!(list.lines().count(), 1, "{list:?}");
    assert!(!list.contains('\x1b'), "{list:?}");
    assert!(list.contains("a\\ntrusted\\t/etc\\e[2J"), "{list:?}");
    // An MCP server name from a repository, in the note of a run that ignored it.
    std::fs::write(
        env.cwd.join(".mcp.json"),
        r#"{"mcpServers":{"x\u001b[1A\u001b[2Kfine\rok":{"command":"true"}}}"#,
    )
    .unwrap();
    let out = env.run(&["--base-url", "http://127.0.0.1:9/v1", "hi"]);
    let err = stderr(&out);
    assert!(err.contains("not a trusted folder"), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\r'), "{err:?}");
    assert!(err.contains("x\\e[1A\\e[2Kfine\\rok"), "{err:?}");
    // `mcp list` refuses the name, printed escaped.
    let out = env.run(&["mcp", "list"]);
    assert!(!stderr(&out).contains('\x1b'), "{:?}", stderr(&out));
}

#[test]
fn item4_trusting_root_or_home_is_refused() {
    let env = Env::new();
    for dir in [
        "/",
        env.home.to_str().unwrap(),
        env.home.parent().unwrap().to_str().unwrap(),
    ] {
        let out = env.run(&["trust", dir]);
        expect_code(&out, 2);
        assert!(
            stderr(&out).contains("every folder below it"),
            "{dir}: {}",
            stderr(&out)
        );
    }
    assert_eq!(user_entries(&env), serde_json::Value::Null);
    // `~` as the shell spells it, and a symlink to the root, are the same folders.
    let link = env.cwd.join("root-link");
    std::os::unix::fs::symlink("/", &link).unwrap();
    expect_code(&env.run(&["trust", link.to_str().unwrap()]), 2);
    // Taking trust away stays possible, and a project folder is trusted as before.
    expect_code(&env.run(&["trust", "--untrust", "/"]), 0);
    expect_code(&env.run(&["trust"]), 0);
    assert_eq!(user_entries(&env)[env.cwd.to_str().unwrap()], true);
}
