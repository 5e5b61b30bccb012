//! A real `--listen` agent against the scripted model server, for the tests that write its
//! input.fifo from outside: started, read back through its events, and ended by a
//! SESSION_END frame with a clean exit, no panic and a well-formed conversation.
use super::checks::{assert_no_panic, check_conversation, wait_timeout, Guard};
use super::{events, wait_for, Env, Mock};
use bash_agent::ipc::client::has_reader;
use bash_agent::ipc::fifo::write_frame;
use bash_agent::ipc::resp::Frame;
use std::path::PathBuf;
use std::process::Stdio;

pub struct Listening {
    pub child: Guard,
    pub sdir: PathBuf,
    pub fifo: PathBuf,
    pub errlog: PathBuf,
    pub mock: Mock,
}

impl Listening {
    /// Session `id` listening on its input.fifo (returns once the FIFO has its reader); the
    /// model answers "ok." to everything. `key` is the fake API key of the run.
    pub fn start(env: &Env, id: &str, key: &str) -> Listening {
        let mock = Mock::start(r#"[{"repeat":true,"text":"ok."}]"#);
        let errlog = env.dir.path().join(format!("stderr-{id}.log"));
        let child = Guard(
            env.cmd()
                .args(["--provider", "claude", "--base-url", &mock.base("claude")])
                .args(["--api-key", key, "--session", id, "--listen"])
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&errlog).unwrap())
                .spawn()
                .unwrap(),
        );
        let sdir = env.session_dir(id);
        let fifo = sdir.join("input.fifo");
        assert!(wait_for(20, || has_reader(&fifo)), "no input.fifo reader");
        Listening {
            child,
            sdir,
            fifo,
            errlog,
            mock,
        }
    }

    pub fn events(&self) -> Vec<serde_json::Value> {
        events(&self.sdir.join("events.jsonl"))
    }

    /// The `content` of every user_input event, in order.
    pub fn inputs(&self) -> Vec<String> {
        self.texts("user_input", "content")
    }

    /// The `message` of every error event, in order.
    pub fn errors(&self) -> Vec<String> {
        self.texts("error", "message")
    }

    fn texts(&self, ty: &str, key: &str) -> Vec<String> {
        self.events()
            .iter()
            .filter(|e| e["type"] == ty)
            .map(|e| e[key].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// SESSION_END, then exit 0 within a minute, no panic, a conversation that parses.
    pub fn finish(mut self) {
        write_frame(&self.fifo, &Frame::new(["SESSION_END"])).unwrap();
        assert_eq!(wait_timeout(&mut self.child, 60).code(), Some(0));
        assert_no_panic(&std::fs::read_to_string(&self.errlog).unwrap());
        check_conversation(&self.sdir.join("conversation.jsonl"));
    }
}
