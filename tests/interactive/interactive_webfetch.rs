//! WebFetch asks in the default interactive mode, like Bash: the question names the URL and
//! the `WebFetch(domain:…)` rule "always" would add; `n` refuses with the reason reaching the
//! model, and nothing is fetched (the URL's port has no server).
use crate::support::tmux::{have_tmux, read_events, Run, Tmux};
use crate::support::*;

#[test]
fn default_mode_asks_before_webfetch() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let script = serde_json::json!([
        {"when": "not this site", "text": "OK, no fetch."},
        {"when": "read the page", "tool_calls": [
            {"name": "WebFetch", "id": "call_w", "input": {"url": "http://127.0.0.1:9/doc", "prompt": "summary"}}]},
        {"text": "Done."}
    ])
    .to_string();
    let mock = Mock::start(&script);
    let events_path = env.session_dir("s").join("events.jsonl");
    let t = Tmux::for_env(&env);
    let run = Run::start(&t, &env, "wf", &mock.base("claude"));
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    t.type_text(w, "read the page");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the question",
        30,
        || {
            t.screen(w)
                .contains("Allow WebFetch(http://127.0.0.1:9/doc)?")
        },
        diag,
    );
    assert!(
        t.screen(w)
            .contains("\"don't ask again\" adds: WebFetch(domain:127.0.0.1)"),
        "{}",
        diag()
    );
    assert_eq!(mock.requests().len(), 1, "{}", diag());
    t.type_text(w, "n not this site");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the answer",
        30,
        || t.screen(w).contains("OK, no fetch."),
        diag,
    );
    let reqs = mock.requests();
    let body = reqs[1]["body"].to_string();
    assert!(body.contains("The user says: not this site"), "{body}");
    let perm: Vec<_> = read_events(&events_path)
        .into_iter()
        .filter(|e| e["type"] == "permission")
        .collect();
    assert_eq!(perm.len(), 1, "{}", diag());
    assert_eq!(perm[0]["call"], "WebFetch(http://127.0.0.1:9/doc)");
    t.wait_turn_end(w, &env.project_dir(), diag);
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 30, || run.rc().is_some(), diag);
}
