//! [`Term`]: the agent in a private tmux against the scripted model, with the few steps the
//! interactive tests take (type a line, press keys, wait for the screen, for the idle
//! prompt, for a turn's end). Topic-specific steps live with their tests.
use super::tmux::{read_events, Run, Tmux};
use super::{wait_until_or, Env, Mock};
use serde_json::Value;

pub struct Term {
    pub env: Env,
    pub mock: Mock,
    pub t: Tmux,
    pub run: Run,
}

impl Term {
    /// The agent in tmux in `env` (`vars`, `args` as for [`Run::start_with`]), not waited
    /// for: the test waits for what the run shows first.
    pub fn launch(env: Env, script: Value, vars: &str, args: &str) -> Term {
        let mock = Mock::start(&script.to_string());
        let t = Tmux::for_env(&env);
        let run = Run::start_with(&t, &env, "term", &mock.base("claude"), vars, args);
        Term { env, mock, t, run }
    }
    /// [`Term::launch`] in a new [`Env`], at its idle prompt.
    pub fn start(script: Value, vars: &str, args: &str) -> Term {
        let term = Term::launch(Env::new(), script, vars, args);
        term.wait("the prompt", 30, |s| s.lines().last() == Some(">"));
        term
    }
    pub fn screen(&self) -> String {
        self.t.screen(&self.run.name)
    }
    /// What a failed wait shows (see [`Tmux::diag`]).
    pub fn diag(&self) -> String {
        self.t.diag(&self.run.name, &self.mock)
    }
    pub fn wait(&self, what: &str, secs: u64, mut cond: impl FnMut(&str) -> bool) {
        wait_until_or(what, secs, || cond(&self.screen()), || self.diag());
    }
    pub fn send(&self, line: &str) {
        self.t.type_text(&self.run.name, line);
        self.t.keys(&self.run.name, &["Enter"]);
    }
    pub fn keys(&self, keys: &[&str]) {
        self.t.keys(&self.run.name, keys);
    }
    /// After a restart: see [`Tmux::wait_editor`].
    pub fn wait_editor(&self) {
        self.t.wait_editor(&self.run.name);
    }
    /// The prompt is back and no turn runs.
    pub fn wait_idle(&self) {
        let flag = self.env.session_dir("s").join("agent_running.flag");
        wait_until_or(
            "the idle prompt",
            30,
            || self.screen().lines().last() == Some(">") && !flag.exists(),
            || self.diag(),
        );
    }
    /// Wait until the turn whose output was seen has ended (see [`Tmux::wait_turn_end`]).
    pub fn turn_end(&self) {
        self.t
            .wait_turn_end(&self.run.name, &self.env.project_dir(), || self.diag());
    }
    /// Session `s`'s events.
    pub fn events(&self) -> Vec<Value> {
        read_events(&self.env.session_dir("s").join("events.jsonl"))
    }
}
