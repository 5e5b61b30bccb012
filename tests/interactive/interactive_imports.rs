//! Issue 33 item 5 on a terminal: a project's CLAUDE.md imports two files from outside the
//! project; start-up asks about each once, before the line editor, and only the one the
//! person allowed reaches the model's system prompt.
use crate::support::tmux::{have_tmux, Run, Tmux};
use crate::support::*;

#[test]
fn outside_imports_are_asked_about_once_at_start_up() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    std::fs::create_dir_all(env.home.join("notes")).unwrap();
    let a = env.home.join("notes/a.txt");
    let b = env.home.join("notes/b.txt");
    std::fs::write(&a, "NOTE-A-ALLOWED\n").unwrap();
    std::fs::write(&b, "NOTE-B-REFUSED\n").unwrap();
    std::fs::write(
        env.cwd.join("CLAUDE.md"),
        "Rules. @~/notes/a.txt @~/notes/b.txt @~/notes/a.txt\n",
    )
    .unwrap();
    // A trusted folder (the trust decision of the same issue): only there may a question
    // let a file from outside the project in.
    std::fs::create_dir_all(env.home.join(".bash-agent")).unwrap();
    std::fs::write(
        env.home.join(".bash-agent/settings.json"),
        serde_json::json!({"trusted_folders": {env.cwd.display().to_string(): true}}).to_string(),
    )
    .unwrap();
    let mock = Mock::start(r#"[{"text":"Hello.","repeat":true}]"#);
    let t = Tmux::for_env(&env);
    let run = Run::start(&t, &env, "imp", &mock.base("claude"));
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    let q = |p: &std::path::Path| format!("imports {}, outside the project.", p.display());
    wait_until_or(
        "the first question",
        30,
        || t.screen(w).contains(&q(&a)),
        diag,
    );
    t.type_text(w, "y");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the second question",
        30,
        || t.screen(w).contains(&q(&b)),
        diag,
    );
    t.type_text(w, "n");
    t.keys(w, &["Enter"]);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    // Asked once per file, though a.txt is named twice.
    assert_eq!(t.screen(w).matches(&q(&a)).count(), 1, "{}", diag());
    t.type_text(w, "hi");
    t.keys(w, &["Enter"]);
    wait_until_or("the answer", 30, || t.screen(w).contains("Hello."), diag);
    let sys = mock.requests()[0]["body"]["system"].to_string();
    assert!(sys.contains("NOTE-A-ALLOWED"), "{sys}");
    assert!(!sys.contains("NOTE-B-REFUSED"), "{sys}");
    // The refused one is not warned about on top of the answer.
    assert!(!t.screen(w).contains("was skipped"), "{}", diag());
    wait_until_or("the prompt back", 30, || t.last_line(w) == ">", diag);
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 30, || run.rc().is_some(), diag);
}
