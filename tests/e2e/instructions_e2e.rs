//! Instruction files as sent: run from a subfolder of a git repository, every AGENTS.md and
//! CLAUDE.md from the root down is in the recorded request (outermost first), CLAUDE.md's
//! `@path` imports are resolved, and stream-json's init record lists the files.
use crate::support::*;
use serde_json::Value;

#[test]
fn instruction_files_from_the_git_root_down_are_sent() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","usage":{"input":1,"output":1}}]"#);
    let root = &env.cwd;
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let sub = root.join("pkg/inner");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(root.join("AGENTS.md"), "ROOT-AGENTS rule\n").unwrap();
    std::fs::write(
        root.join("CLAUDE.md"),
        "ROOT-CLAUDE rule, see @docs/style.md\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/style.md"), "IMPORTED-STYLE rule\n").unwrap();
    std::fs::write(root.join("pkg/AGENTS.md"), "PKG-AGENTS rule\n").unwrap();
    std::fs::write(sub.join("CLAUDE.local.md"), "INNER-LOCAL rule\n").unwrap();
    let mut c = env.cmd_in(
        &sub,
        &["--base-url", &mock.base("claude"), "--api-key", "k"],
    );
    c.args(["--output-format", "stream-json", "hi"]);
    let out = c.output().unwrap();
    expect_code(&out, 0);
    let sys = mock.requests()[0]["body"]["system"].to_string();
    let pos = |s: &str| sys.find(s).unwrap_or_else(|| panic!("{s} missing: {sys}"));
    assert!(pos("ROOT-AGENTS") < pos("ROOT-CLAUDE"));
    assert!(pos("ROOT-CLAUDE") < pos("IMPORTED-STYLE"));
    assert!(pos("IMPORTED-STYLE") < pos("PKG-AGENTS"));
    assert!(pos("PKG-AGENTS") < pos("INNER-LOCAL"));
    let init: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    let listed: Vec<String> = init["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = [
        root.join("AGENTS.md"),
        root.join("CLAUDE.md"),
        root.join("pkg/AGENTS.md"),
        sub.join("CLAUDE.local.md"),
    ]
    .iter()
    .map(|p| p.display().to_string())
    .collect();
    assert_eq!(listed, want);
}
