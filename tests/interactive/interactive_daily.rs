//! What a Claude Code user meets in daily interactive use (issue 35), in a real terminal
//! (tmux) against the scripted model: the status line follows a streamed answer (phase and
//! token count) and, with markdown on, the line being streamed shows while it grows.
//! Every check waits for the screen (the prompt, the status line) to come back first.
use crate::support::tmux::{have_tmux, Run, Tmux};
use crate::support::*;
use serde_json::{json, Value};

const COLOR: &str = "TERM=xterm-256color";

struct Term {
    env: Env,
    mock: Mock,
    t: Tmux,
    run: Run,
}

impl Term {
    /// The agent in tmux (`vars`, `args` as for [`Run::start_with`]), at its idle prompt.
    fn start(script: Value, vars: &str, args: &str) -> Term {
        let env = Env::new();
        let mock = Mock::start(&script.to_string());
        let t = Tmux::for_env(&env);
        let run = Run::start_with(&t, &env, "d", &mock.base("claude"), vars, args);
        let term = Term { env, mock, t, run };
        term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
        term
    }
    fn screen(&self) -> String {
        self.t.screen(&self.run.name)
    }
    fn wait(&self, what: &str, secs: u64, mut cond: impl FnMut(&str) -> bool) {
        let diag = || self.t.diag(&self.run.name, &self.mock);
        wait_until_or(what, secs, || cond(&self.screen()), diag);
    }
    fn send(&self, line: &str) {
        self.t.type_text(&self.run.name, line);
        self.t.keys(&self.run.name, &["Enter"]);
    }
    fn keys(&self, keys: &[&str]) {
        self.t.keys(&self.run.name, keys);
    }
    /// The prompt is back and no turn runs.
    fn wait_idle(&self) {
        let flag = self.env.session_dir("s").join("agent_running.flag");
        let diag = || self.t.diag(&self.run.name, &self.mock);
        wait_until_or(
            "the idle prompt",
            30,
            || self.screen().lines().last() == Some(">") && !flag.exists(),
            diag,
        );
    }
}

/// The token count the status line shows (`↓ N tokens`), if any.
fn shown_tokens(screen: &str) -> Option<u64> {
    let at = screen.rfind("↓ ")?;
    screen[at + "↓ ".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[test]
fn the_status_line_and_the_streamed_line_follow_a_long_answer() {
    if !have_tmux() {
        return;
    }
    let words = "streaming words arrive one by one ".repeat(6);
    let term = Term::start(
        json!([{"when": "tell me", "text": format!("{words}END"), "chunk": 2, "delay_ms": 40}]),
        COLOR,
        "",
    );
    term.send("tell me");
    // Markdown is on: the growing line shows above the status line, which says "writing"
    // and counts tokens.
    term.wait("the growing line and a counting status line", 20, |s| {
        s.contains("streaming words arrive")
            && s.contains("writing…")
            && shown_tokens(s).is_some_and(|n| n > 0)
    });
    let first = shown_tokens(&term.screen()).unwrap_or(0);
    term.wait("the count grows", 20, |s| {
        s.contains("END") || shown_tokens(s).is_some_and(|n| n > first)
    });
    term.wait_idle();
    let s = term.screen();
    assert!(s.contains(&format!("{}END", words)), "{s}");
    assert!(!s.contains("esc to interrupt"), "{s}");
    term.keys(&["C-d"]);
}
