//! Issue 39, "Dialogs", in a real terminal (tmux): the approval question as a menu (a
//! number answers, ↑/↓ and Enter pick), the plan shown before the question that leaves plan
//! mode, and a prompt typed at the trust question kept as the first message
//! (docs/interactive.md, "Permissions", "Plan mode"; docs/sandbox.md, "Trust").
use crate::support::term::Term;
use crate::support::tmux::have_tmux;
use crate::support::*;
use serde_json::{json, Value};

impl Term {
    fn permissions(&self) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["type"] == "permission")
            .collect()
    }
    fn end(&self) {
        self.turn_end();
        self.keys(&["C-d"]);
        wait_until_or("the exit", 30, || self.run.rc().is_some(), || self.diag());
    }
}

fn rm(id: &str, file: &str) -> Value {
    json!({"name": "Bash", "id": id, "input": {"command": format!("rm -f {file}")}})
}

#[test]
fn the_question_is_a_menu_numbers_and_arrows_answer() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    for f in ["one.txt", "two.txt"] {
        std::fs::write(env.cwd.join(f), "x").unwrap();
    }
    // Colours on: the status line draws the menu and its selection.
    let term = Term::launch(
        env,
        json!([
            {"when": "clean one", "tool_calls": [rm("c1", "one.txt")]},
            {"when": "clean two", "tool_calls": [rm("c2", "two.txt")]},
            {"text": "Done.", "repeat": true}
        ]),
        "TERM=xterm-256color",
        "",
    );
    term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
    term.send("clean one");
    term.wait("the question", 30, |s| {
        s.contains("Allow Bash(rm -f one.txt)?") && s.contains("↑/↓ and Enter")
    });
    let s = term.screen();
    assert!(s.contains("\"don't ask again\" adds: Bash("), "{s}");
    assert!(s.contains("↑/↓ and Enter, or 1-5"), "{s}");
    term.wait("the menu, its first choice selected", 30, |s| {
        s.contains("❯ 1. Yes")
    });
    term.keys(&["Down"]);
    term.wait("the selection moved down", 30, |s| {
        s.contains("❯ 2. Yes, and don't ask again this session")
    });
    term.keys(&["Up"]);
    term.keys(&["Up"]);
    term.wait("the selection wrapped to the last choice", 30, |s| {
        s.contains("❯ 5. No, and tell the agent what to do instead")
    });
    term.keys(&["Down"]);
    term.wait("back on the first", 30, |s| s.contains("❯ 1. Yes"));
    term.keys(&["Enter"]);
    term.wait("allowed once", 30, |s| {
        s.contains("Allowed once.") && s.contains("Done.")
    });
    assert!(!term.env.cwd.join("one.txt").exists());
    // A number answers at once, without Enter.
    term.send("clean two");
    term.wait("the second question", 30, |s| {
        s.contains("Allow Bash(rm -f two.txt)?")
    });
    term.wait("its menu", 30, |s| s.contains("❯ 1. Yes"));
    term.keys(&["5"]);
    term.wait("refused", 30, |s| {
        s.contains("Refused; the agent is told why.")
    });
    assert!(term.env.cwd.join("two.txt").exists());
    // The transcript keeps the choice taken.
    let s = term.screen();
    assert!(
        s.contains("❯ 5. No, and tell the agent what to do instead\nRefused"),
        "{s}"
    );
    let p = term.permissions();
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(
        (p[0]["answer"].as_str(), p[1]["answer"].as_str()),
        (Some("yes"), Some("no"))
    );
    term.end();
}

#[test]
fn plan_mode_shows_the_plan_before_asking_to_leave_it() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let draft = env.session_dir("s").join("plan.draft");
    let plan = "1. Rename the parser module\n2. Run the tests PLAN-MARKER";
    let term = Term::launch(
        env,
        json!([
            {"when": "make a plan", "tool_calls": [
                {"name": "Write", "id": "w1", "input": {"path": draft, "content": plan}}]},
            {"when": "did not approve the plan", "tool_calls": [
                {"name": "PlanConfirm", "id": "pc2", "input": {}}]},
            {"tool_calls": [{"name": "PlanConfirm", "id": "pc", "input": {}}]},
            {"text": "Starting on the plan."}
        ]),
        "NO_COLOR=1 TERM=xterm-256color",
        "--permission-mode plan",
    );
    term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
    term.send("make a plan");
    term.wait("the question", 30, |s| {
        s.contains("Leave plan mode and start on this plan?")
    });
    let s = term.screen();
    let (shown, q) = (
        s.find("│ 2. Run the tests PLAN-MARKER")
            .expect("the plan on screen"),
        s.find("Leave plan mode").unwrap(),
    );
    assert!(shown < q, "the plan comes before the question:\n{s}");
    assert!(s.contains("2. Yes, start, and accept edits"), "{s}");
    // Nothing confirmed while the question waits.
    assert_eq!(term.mock.requests().len(), 2);
    // No: plan mode goes on, the agent is told what to change, and asks again.
    term.send("n add a test first");
    term.wait("the question again", 30, |s| {
        s.matches("Leave plan mode and start on this plan?").count() == 2
    });
    let body = term.mock.requests()[2]["body"].to_string();
    assert!(body.contains("did not approve the plan"), "{body}");
    assert!(body.contains("The user says: add a test first"), "{body}");
    assert!(term.env.read("s", "plan.md").is_empty());
    term.keys(&["2"]);
    term.wait("the model goes on", 30, |s| {
        s.contains("Starting on the plan.")
    });
    let p = term.permissions();
    assert_eq!(p.last().unwrap()["call"], "PlanConfirm", "{p:?}");
    assert_eq!(p.last().unwrap()["answer"], "always", "{p:?}");
    assert!(term.env.read("s", "plan.md").contains("PLAN-MARKER"));
    term.send("/permissions");
    term.wait("the mode chosen", 30, |s| {
        s.contains("permission mode  accept-edits")
    });
    term.end();
}

#[test]
fn a_prompt_typed_at_the_trust_question_is_sent_not_lost() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    // Project settings that widen (an allow rule): the folder's trust is asked.
    std::fs::create_dir_all(env.cwd.join(".bash-agent")).unwrap();
    std::fs::write(
        env.cwd.join(".bash-agent/settings.json"),
        r#"{"permissions":{"allow":["Bash(make:*)"]}}"#,
    )
    .unwrap();
    let term = Term::launch(
        env,
        json!([{"when": "fix the failing test", "text": "Looking at the test."}]),
        "NO_COLOR=1 TERM=xterm-256color",
        "",
    );
    term.wait("the trust question", 30, |s| {
        s.contains("Do you trust this folder?")
    });
    term.send("fix the failing test");
    term.wait("the typed prompt answered", 30, |s| {
        s.contains("Looking at the test.")
    });
    assert!(term.screen().contains("not an answer"), "{}", term.screen());
    let reqs = term.mock.requests();
    assert_eq!(reqs.len(), 1);
    assert!(reqs[0]["body"].to_string().contains("fix the failing test"));
    // "Not now": nothing stored, the folder not trusted.
    let user = std::fs::read_to_string(term.env.home.join(".bash-agent/settings.json"))
        .unwrap_or_default();
    assert!(!user.contains("trusted_folders"), "{user}");
    term.end();
}

/// Issue 42, item 2: the project's `.bash-agent` linked to the user's own folder receives
/// nothing through choice 3; the user's settings file linked into a dotfiles folder is
/// written through its link by choice 4.
#[test]
fn saves_never_leave_the_project_and_follow_the_users_dotfiles_link() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    for f in ["one.txt", "two.txt"] {
        std::fs::write(env.cwd.join(f), "x").unwrap();
    }
    let dots = env.dir.path().join("dotfiles/bash-agent.json");
    std::fs::create_dir_all(dots.parent().unwrap()).unwrap();
    let mine = r#"{"permissions":{"deny":["Bash(shutdown:*)"]}}"#;
    std::fs::write(&dots, mine).unwrap();
    let agent_home = env.home.join(".bash-agent");
    std::fs::create_dir_all(&agent_home).unwrap();
    std::os::unix::fs::symlink(&dots, agent_home.join("settings.json")).unwrap();
    std::os::unix::fs::symlink(&agent_home, env.cwd.join(".bash-agent")).unwrap();
    let term = Term::launch(
        env,
        json!([
            {"when": "clean one", "tool_calls": [rm("c1", "one.txt")]},
            {"when": "move two", "tool_calls": [
                {"name": "Bash", "id": "m2", "input": {"command": "mv two.txt moved.txt"}}]},
            {"text": "Done.", "repeat": true}
        ]),
        "NO_COLOR=1 TERM=xterm-256color",
        "",
    );
    term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
    term.send("clean one");
    term.wait("the question", 30, |s| {
        s.contains("Allow Bash(rm -f one.txt)?")
    });
    term.keys(&["3"]);
    term.wait("the refusal to save", 30, |s| {
        s.contains("leads out of the project") && s.contains("Done.")
    });
    assert!(
        !term.env.cwd.join("one.txt").exists(),
        "allowed for the session"
    );
    assert_eq!(std::fs::read_to_string(&dots).unwrap(), mine);
    // Choice 4 writes through the user's link.
    term.send("move two");
    term.wait("the second question", 30, |s| {
        s.contains("Allow Bash(mv two.txt moved.txt)?")
    });
    term.keys(&["4"]);
    term.wait("saved for the user", 30, |s| {
        s.matches("Done.").count() == 2
    });
    let link = term.env.home.join(".bash-agent/settings.json");
    assert!(link.is_symlink());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&dots).unwrap()).unwrap();
    assert_eq!(v["permissions"]["deny"], json!(["Bash(shutdown:*)"]), "{v}");
    assert!(
        v["permissions"]["allow"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{v}"
    );
    assert!(v.get("trusted_folders").is_none(), "{v}");
    term.end();
}

/// A folder the person chose not to trust: no project choice, and a typed `p` saves nothing
/// there (the rules hold for the session; the folder stays untrusted).
#[test]
fn a_declined_folder_gets_no_project_rule() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    std::fs::write(env.cwd.join("one.txt"), "x").unwrap();
    let user = env.home.join(".bash-agent/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    let mine = json!({"trusted_folders": {env.cwd.to_str().unwrap(): false}}).to_string();
    std::fs::write(&user, &mine).unwrap();
    let term = Term::launch(
        env,
        json!([
            {"when": "clean one", "tool_calls": [rm("c1", "one.txt")]},
            {"text": "Done.", "repeat": true}
        ]),
        "NO_COLOR=1 TERM=xterm-256color",
        "",
    );
    term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
    term.send("clean one");
    term.wait("the question", 30, |s| s.contains("↑/↓ and Enter, or 1-4"));
    let s = term.screen();
    assert!(!s.contains("in this project"), "{s}");
    assert!(s.contains("3. Yes, and don't ask again anywhere"), "{s}");
    term.send("p");
    term.wait("kept for the session", 30, |s| {
        s.contains("for this session (not saved: you chose not to trust this folder")
            && s.contains("Done.")
    });
    assert!(!term.env.cwd.join(".bash-agent").exists());
    assert_eq!(std::fs::read_to_string(&user).unwrap(), mine);
    term.end();
}

/// A project in the home folder: choice 3 would trust every folder below it, so nothing is
/// saved in the project and nothing is trusted.
#[test]
fn a_project_rule_never_trusts_the_home_folder() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    std::fs::write(env.cwd.join("one.txt"), "x").unwrap();
    let home = format!(
        "NO_COLOR=1 TERM=xterm-256color HOME='{}'",
        env.cwd.display()
    );
    let term = Term::launch(
        env,
        json!([
            {"when": "clean one", "tool_calls": [rm("c1", "one.txt")]},
            {"text": "Done.", "repeat": true}
        ]),
        &home,
        "",
    );
    term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
    term.send("clean one");
    term.wait("the question", 30, |s| s.contains("↑/↓ and Enter, or 1-5"));
    term.keys(&["3"]);
    term.wait("kept for the session", 30, |s| {
        s.contains("cannot be (it is your home folder") && s.contains("Done.")
    });
    assert!(!term.env.cwd.join(".bash-agent").exists());
    let user = std::fs::read_to_string(term.env.home.join(".bash-agent/settings.json"))
        .unwrap_or_default();
    assert!(!user.contains("trusted_folders"), "{user}");
    term.end();
}
