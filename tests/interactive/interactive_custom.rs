//! Custom slash commands in a real terminal (tmux) against the scripted model: a project
//! command in the palette (with its argument hint and description) and Tab completion, in
//! `/help`, a built-in's name reported once at start, the command run with its arguments
//! substituted (`$0` the first, as in Claude Code), and a `` !`cmd` `` asked
//! about (refused: nothing sent) unless its `allowed-tools` allow it.
use crate::interactive_e2e::{have_tmux, Run, Tmux};
use crate::support::*;

#[test]
fn custom_command_in_palette_help_and_run() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let dir = env.cwd.join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("greet.md"),
        "---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $0 warmly.\n",
    )
    .unwrap();
    std::fs::write(dir.join("status.md"), "Not the built-in.\n").unwrap();
    // `!` commands go through the permission gate: asked (and refused) without
    // allowed-tools, run at once with it.
    std::fs::write(dir.join("mk.md"), "Made: !`touch made.txt`\n").unwrap();
    std::fs::write(
        dir.join("mk2.md"),
        "---\nallowed-tools: Bash(touch:*)\n---\nMade: !`touch made2.txt`\n",
    )
    .unwrap();
    let mock = Mock::start(r#"[{"text":"Answer.","repeat":true}]"#);
    let t = Tmux::for_env(&env);
    let run = Run::start(&t, &env, "cc", &mock.base("claude"));
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    let wait = |what: &str, cond: &dyn Fn() -> bool| wait_until_or(what, 30, cond, diag);
    let shows = |what: &str| wait(what, &|| t.screen(w).contains(what));
    wait("the prompt", &|| t.last_line(w) == ">");
    // The clash with /status: said once at start.
    assert_eq!(
        t.screen(w)
            .matches("has the name of a built-in command")
            .count(),
        1,
        "{}",
        diag()
    );

    // The palette shows it; Tab completes the name.
    t.type_text(w, "/gr");
    shows("<name> — Greet someone (project)");
    t.keys(w, &["Tab"]);
    wait("the completed name", &|| t.last_line(w) == "> /greet");
    t.keys(w, &["C-u"]);
    wait("an empty line", &|| t.last_line(w) == ">");

    // /help lists it under the custom commands.
    t.type_text(w, "/help");
    t.keys(w, &["Enter"]);
    shows("Custom commands (.claude/commands, .bash-agent/commands, skills):");
    shows("/greet <name>");
    wait("the prompt", &|| t.last_line(w) == ">");

    // Run with an argument: the body goes to the model.
    t.type_text(w, "/greet Ann");
    t.keys(w, &["Enter"]);
    wait("the request", &|| mock.requests().len() == 1);
    shows("Answer.");
    t.wait_turn_end(w, &env.project_dir(), diag);
    let req = &mock.requests()[0];
    assert!(
        req["body"]["messages"]
            .to_string()
            .contains("Greet Ann warmly."),
        "{req}"
    );

    t.type_text(w, "/mk");
    t.keys(w, &["Enter"]);
    shows("5. No, and tell the agent what to do instead");
    t.type_text(w, "n not now");
    t.keys(w, &["Enter"]);
    shows("Error: /mk: !`touch made.txt` was not run:");
    wait("the prompt", &|| t.last_line(w) == ">");
    assert!(!env.cwd.join("made.txt").exists());
    assert_eq!(mock.requests().len(), 1, "{}", diag());
    t.type_text(w, "/mk2");
    t.keys(w, &["Enter"]);
    wait("the second request", &|| mock.requests().len() == 2);
    t.wait_turn_end(w, &env.project_dir(), diag);
    assert!(env.cwd.join("made2.txt").exists());
    t.keys(w, &["C-d"]);
    wait("the exit", &|| run.rc().is_some());
}
