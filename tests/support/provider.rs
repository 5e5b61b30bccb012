//! The provider layer called in-process against the [`Mock`] server: configs pointing at
//! it, fast retry options, and one call's events collected.
use super::Mock;
use bash_agent::provider::{
    stream_with, CallInfo, HttpOptions, ProviderConfig, ProviderKind, Request, StreamEvent,
};
use bash_agent::util::cancel::Cancel;
use std::time::Duration;

pub const KINDS: [ProviderKind; 3] = [
    ProviderKind::Claude,
    ProviderKind::OpenAi,
    ProviderKind::Responses,
];

impl Mock {
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
            effort: Some(bash_agent::options::Effort::High),
            thinking: Some(bash_agent::options::Thinking::Adaptive),
            verbose: false,
        }
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
    // The arguments' progress deltas are counted apart: the tests compare the events that
    // make the answer.
    let mut arg_bytes = 0u64;
    let info = stream_with(cfg, &req, cancel, opts, &mut |e| match e {
        StreamEvent::Usage { usage, .. } => events.push(StreamEvent::Usage { usage, speed: 0 }),
        StreamEvent::ToolInputDelta(n) => arg_bytes += n,
        other => events.push(other),
    });
    // Every byte of every tool call's arguments was announced as it streamed.
    let args: usize = events
        .iter()
        .map(|e| match e {
            StreamEvent::ToolCall { input_raw, .. } => input_raw.len(),
            _ => 0,
        })
        .sum();
    let retried = events.iter().any(|e| matches!(e, StreamEvent::Retry));
    assert!(
        retried || arg_bytes as usize == args,
        "{arg_bytes} argument bytes announced, {args} received"
    );
    (events, info)
}

pub const TOOLS: &str = r#"[{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]"#;
