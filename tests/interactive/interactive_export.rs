//! `/export` in a real terminal (tmux) against the scripted model: after one turn, `/export`
//! writes `<session>.md` in the working directory and says where; `/export html FILE` writes
//! one self-contained HTML file; a directory as FILE is refused with a clear error.
use crate::interactive_e2e::{have_tmux, Run, Tmux};
use crate::support::*;

#[test]
fn export_writes_the_transcript_and_says_where() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let t = Tmux::for_env(&env);
    let script = serde_json::json!([
        {"text": "The **answer** is 42.", "repeat": true, "usage": {"input": 12, "output": 4}}
    ])
    .to_string();
    let mock = Mock::start(&script);
    let run = Run::start_with(
        &t,
        &env,
        "exp",
        &mock.base("claude"),
        "NO_COLOR=1 TERM=xterm-256color",
        "",
    );
    let w = run.name.as_str();
    let diag = || format!("screen:\n{}", t.screen(w));
    let wait = |what: &str, cond: &dyn Fn() -> bool| wait_until_or(what, 30, cond, diag);
    let send = |line: &str| {
        t.type_text(w, line);
        t.keys(w, &["Enter"]);
    };
    wait("the prompt", &|| t.last_line(w) == ">");
    send("what is the answer?");
    wait("the answer", &|| t.screen(w).contains("is 42."));
    t.wait_turn_end(w, &env.project_dir(), diag);

    send("/export");
    let md = env.cwd.join("s.md");
    let said = format!("Exported 1 turns (md) to {}", md.display());
    wait("the export line", &|| t.screen(w).contains(&said));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("## Turn 1: user\n\nwhat is the answer?"),
        "{text}"
    );
    assert!(text.contains("The **answer** is 42."), "{text}");
    assert!(text.contains("## Usage"), "{text}");

    send("/export html page.html");
    let html = env.cwd.join("page.html");
    let said = format!("Exported 1 turns (html) to {}", html.display());
    wait("the html export line", &|| t.screen(w).contains(&said));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("<strong>answer</strong>"), "{page}");
    assert!(!page.contains("<script"), "{page}");

    std::fs::create_dir_all(env.cwd.join("adir")).unwrap();
    send("/export adir");
    wait("the refusal", &|| {
        t.screen(w).contains("is a directory; give a file name")
    });
    // None of it went to the model.
    assert_eq!(mock.requests().len(), 1, "{}", diag());
    send("/exit");
    wait("the exit", &|| run.rc().is_some());
}
