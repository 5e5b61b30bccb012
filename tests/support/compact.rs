//! Compaction inputs: a provider/run config pointing at a server, and generated
//! conversations.
/// A provider/run config pointing at `url`.
pub fn config(url: &str, max_context: u64) -> bash_agent::config::Config {
    use bash_agent::provider::{ProviderConfig, ProviderKind};
    bash_agent::config::Config {
        provider: ProviderConfig {
            kind: ProviderKind::Claude,
            model: "test-model".into(),
            api_key: "x".into(),
            base_url: url.into(),
            max_tokens: 1000,
            effort: Some(bash_agent::options::Effort::High),
            thinking: Some(bash_agent::options::Thinking::Adaptive),
            verbose: false,
        },
        max_turns: 100,
        max_context,
        tool_timeout: 10,
        skills: vec![],
        output: bash_agent::options::OutputFormat::Human,
        max_result_bytes: 100_000,
        bash_mode: 0o467,
        verbose: false,
        vision: false,
        sandbox: Default::default(),
        overrides: Default::default(),
    }
}

/// Conversation lines: `turns` user turns, each followed by an assistant tool call, its
/// result and a final assistant answer, with ~`pad` bytes of text per line.
pub fn conversation(turns: usize, pad: usize) -> Vec<String> {
    use bash_agent::session::conversation::{
        assistant_line, tool_results_line, user_text_line, ToolUse,
    };
    let fill = "y".repeat(pad);
    let mut out = Vec::new();
    for t in 0..turns {
        let id = format!("toolu_{t}");
        out.push(user_text_line(&format!("request {t} {fill}")));
        let tu = ToolUse {
            id: id.clone(),
            name: "Bash".into(),
            input_raw: r#"{"command":"ls"}"#.into(),
        };
        out.push(assistant_line("", &format!("calling {t}"), &[tu]));
        out.push(tool_results_line(&[(id, format!("output {t} {fill}"))]));
        out.push(assistant_line("", &format!("answer {t} {fill}"), &[]));
    }
    out
}
