//! Shared helpers for the provider tests: the real `bash-agent mock-server` binary,
//! provider configs pointing at it, and event collection.
#![allow(dead_code)]
use bash_agent::provider::{
    stream_with, CallInfo, HttpOptions, ProviderConfig, ProviderKind, Request, StreamEvent,
};
use bash_agent::util::cancel::Cancel;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const KINDS: [ProviderKind; 3] = [
    ProviderKind::Claude,
    ProviderKind::OpenAi,
    ProviderKind::Responses,
];

/// A mock server child process, killed on drop.
pub struct Mock {
    pub url: String,
    pub record: PathBuf,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Mock {
    pub fn start(script: &str) -> Mock {
        let dir = tempfile::tempdir().unwrap();
        let script_path = dir.path().join("script.json");
        std::fs::write(&script_path, script).unwrap();
        let record = dir.path().join("record.jsonl");
        let mut child = Command::new(env!("CARGO_BIN_EXE_bash-agent"))
            .arg("mock-server")
            .arg("--script")
            .arg(&script_path)
            .arg("--port")
            .arg("0")
            .arg("--record")
            .arg(&record)
            .env("BASH_AGENT_HOME", dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "bad url line {line:?}"
        );
        Mock {
            url,
            record,
            child,
            _dir: dir,
        }
    }

    /// The recorded requests, parsed.
    pub fn records(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Base URL as the provider config expects it (claude bases carry `/v1`).
    pub fn base(&self, kind: ProviderKind) -> String {
        match kind {
            ProviderKind::Claude => format!("{}/v1", self.url),
            _ => self.url.clone(),
        }
    }

    pub fn cfg(&self, kind: ProviderKind) -> ProviderConfig {
        Mock::cfg_for(&self.url, kind)
    }

    /// A config for any server URL (`/v1` appended for claude).
    pub fn cfg_for(url: &str, kind: ProviderKind) -> ProviderConfig {
        let base_url = match kind {
            ProviderKind::Claude => format!("{url}/v1"),
            _ => url.to_string(),
        };
        ProviderConfig {
            kind,
            model: "mock-model".into(),
            api_key: "sk-test-secret".into(),
            base_url,
            max_tokens: 1000,
            effort: Some(bash_agent::provider::Effort::High),
            thinking: Some(bash_agent::provider::Thinking::Adaptive),
            verbose: false,
        }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn fast_opts() -> HttpOptions {
    HttpOptions {
        retry_base_ms: 5,
        stall: Duration::from_secs(5),
        ..HttpOptions::default()
    }
}

pub fn user(text: &str) -> String {
    format!(
        "{{\"role\":\"user\",\"content\":{}}}",
        serde_json::to_string(text).unwrap()
    )
}

/// Run one call; speed is zeroed so sequences compare exactly.
pub fn run(
    cfg: &ProviderConfig,
    msgs: &[String],
    opts: &HttpOptions,
    cancel: &Cancel,
) -> (Vec<StreamEvent>, CallInfo) {
    let req = Request {
        system: "You are a test.",
        messages: msgs,
        tools_json: TOOLS,
        disable_thinking: false,
    };
    let mut events = Vec::new();
    let info = stream_with(cfg, &req, cancel, opts, &mut |e| {
        events.push(match e {
            StreamEvent::Usage { usage, .. } => StreamEvent::Usage { usage, speed: 0 },
            other => other,
        })
    });
    (events, info)
}

pub const TOOLS: &str = r#"[{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]"#;
