use super::*;
use serde_json::Value;

pub fn cfg(kind: ProviderKind, thinking: &str) -> ProviderConfig {
    ProviderConfig {
        kind,
        model: "m-1".into(),
        api_key: "sk-secret".into(),
        base_url: "http://127.0.0.1:9".into(),
        max_tokens: 100,
        effort: Some(Effort::High),
        thinking: <Thinking as clap::ValueEnum>::from_str(thinking, false).ok(),
        verbose: false,
    }
}

pub const TOOLS: &str = r#"[
  {"name": "Read", "description": "Read a file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}
]"#;

pub fn convo() -> Vec<String> {
    vec![
        r#"{"role":"user","content":"hi"}"#.into(),
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Read","input":{"path":"a"}}]}"#.into(),
        String::new(),
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"data"}]}"#.into(),
    ]
}

#[test]
fn claude_golden() {
    let msgs = convo();
    let req = Request {
        system: "sys \"q\"\n",
        messages: &msgs,
        tools_json: TOOLS,
        disable_thinking: false,
    };
    let got = build_body(
        ProviderKind::Claude,
        &cfg(ProviderKind::Claude, "adaptive"),
        &req,
    );
    let want = concat!(
        r#"{"max_tokens":100,"messages":[{"role":"user","content":"hi"},"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Read","input":{"path":"a"}}]},"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"data"}]}],"#,
        r#""model":"m-1","output_config":{"effort":"high"},"stream":true,"system":"sys \"q\"\n","#,
        r#""thinking":{"type":"adaptive"},"#,
        r#""tools":[{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}]}"#
    );
    assert_eq!(got, want);
    assert!(serde_json::from_str::<Value>(&got).is_ok());
}

#[test]
fn claude_thinking_disabled_and_no_tools() {
    let msgs = vec![r#"{"role":"user","content":"x"}"#.to_string()];
    let mut req = Request {
        system: "s",
        messages: &msgs,
        tools_json: "[]",
        disable_thinking: false,
    };
    let want = r#"{"max_tokens":100,"messages":[{"role":"user","content":"x"}],"model":"m-1","stream":true,"system":"s"}"#;
    let c = cfg(ProviderKind::Claude, "disabled");
    assert_eq!(claude_body(&c, &req), want);
    req.disable_thinking = true;
    req.tools_json = "";
    assert_eq!(
        claude_body(&cfg(ProviderKind::Claude, "enabled"), &req),
        want
    );
}
