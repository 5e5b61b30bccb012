use super::*;
use crate::provider::ProviderKind;

fn cfg(model: &str, base: &str, thinking: Option<Thinking>) -> ProviderConfig {
    ProviderConfig {
        kind: ProviderKind::Claude,
        model: model.into(),
        api_key: String::new(),
        base_url: base.into(),
        max_tokens: 32000,
        effort: None,
        thinking,
        verbose: false,
    }
}

fn req() -> Request<'static> {
    Request {
        system: "s",
        messages: &[],
        tools_json: "",
        disable_thinking: false,
    }
}

const OFFICIAL: &str = "https://api.anthropic.com/v1";

#[test]
fn loopback_hosts() {
    for b in [
        "http://127.0.0.1:9/v1",
        "http://localhost:4000/v1",
        "http://[::1]:8080/v1",
        "http://127.0.0.2/v1",
    ] {
        assert!(is_loopback(b), "{b}");
    }
    for b in [
        OFFICIAL,
        "https://gw.example.com/v1",
        "http://10.0.0.5:4000/v1",
    ] {
        assert!(!is_loopback(b), "{b}");
    }
}

#[test]
fn the_table_decides_the_reasoning_fields() {
    let r = |m: &str, t| reasoning(&cfg(m, OFFICIAL, t), &req(), true);
    // Default flags on the official host: each model's own default.
    let f = r("claude-sonnet-5-5", None);
    assert_eq!(f.thinking, Some(Thinking::Adaptive));
    assert_eq!(f.effort, Some("high"));
    let f = r("claude-haiku-4-5", None);
    assert_eq!(f.thinking, Some(Thinking::Enabled));
    assert_eq!(f.budget, Some(16000));
    assert_eq!(f.effort, None, "haiku 4.5 takes no effort");
    // Opus 4.7 rejects enabled; Opus 5.5 rejects disabled.
    assert_eq!(
        r("claude-opus-4-7", Some(Thinking::Enabled)).thinking,
        Some(Thinking::Adaptive)
    );
    assert_eq!(
        r("claude-opus-5-5", Some(Thinking::Disabled)),
        ReasoningFields::default()
    );
    // A retired model (claude-sonnet-4-20250514) never gets adaptive or effort.
    let f = r("claude-sonnet-4-20250514", None);
    assert_eq!((f.thinking, f.effort), (Some(Thinking::Enabled), None));
    // Unknown on the official host: nothing unless asked.
    assert_eq!(r("claude-new-9", None), ReasoningFields::default());
    // Gateways: nothing by default, the mapped ask otherwise.
    let g = |m: &str, t| reasoning(&cfg(m, "https://gw.example/v1", t), &req(), true);
    assert_eq!(g("claude-opus-4-7", None), ReasoningFields::default());
    assert_eq!(
        g("claude-opus-4-7", Some(Thinking::Enabled)).thinking,
        Some(Thinking::Adaptive)
    );
}

#[test]
fn a_budget_never_reaches_max_tokens() {
    let mut c = cfg("claude-haiku-4-5", OFFICIAL, None);
    c.max_tokens = 1500;
    assert_eq!(reasoning(&c, &req(), true).budget, Some(1024));
    c.max_tokens = 1024;
    assert_eq!(reasoning(&c, &req(), true), ReasoningFields::default());
}

#[test]
fn grades() {
    let r = req();
    assert!(anthropic_grade(&cfg("m", OFFICIAL, None), &r));
    assert!(anthropic_grade(
        &cfg("m", "https://gw.example/v1", None),
        &r
    ));
    assert!(anthropic_grade(
        &cfg("claude-sonnet-4-6", "http://127.0.0.1:1/v1", None),
        &r
    ));
    assert!(!anthropic_grade(
        &cfg("smollm2", "http://127.0.0.1:1/v1", None),
        &r
    ));
    let signed = [
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s"}]}"#
            .to_string(),
    ];
    let r2 = Request {
        messages: &signed,
        ..req()
    };
    assert!(anthropic_grade(
        &cfg("smollm2", "http://127.0.0.1:1/v1", None),
        &r2
    ));
    assert!(!anthropic_grade(
        &cfg(
            "deepseek-v4-flash",
            "https://api.deepseek.com/anthropic",
            None
        ),
        &r2
    ));
}

#[test]
fn the_fast_path_cuts_the_shells_empty_blocks_exactly() {
    let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":"ok"},{"type":"tool_use","id":"a","name":"R","input":{"text": "", "x": 1}}]}"#;
    // An empty "text" inside a tool input: parsed, and the input kept whole.
    match strict_assistant(l) {
        Cleaned::Owned(o) => assert!(o.contains(r#""input":{"text":"","x":1}"#), "{o}"),
        other => panic!("{other:?}"),
    }
    let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":""},{"type":"tool_use","id":"a","name":"R","input":{}}]}"#;
    assert_eq!(
        strict_assistant(l),
        Cleaned::Spliced(r#"{"type":"tool_use","id":"a","name":"R","input":{}}]}"#)
    );
    // Nothing left: parsed (the placeholder text block).
    let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":""}]}"#;
    assert!(matches!(strict_assistant(l), Cleaned::Owned(_)));
    // A thinking block with text: parsed.
    let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"}]}"#;
    assert_eq!(
        strict_assistant(l),
        Cleaned::Owned(r#"{"role":"assistant","content":[{"type":"text","text":"ok"}]}"#.into())
    );
    let clean = r#"{"role":"assistant","content":[{"type":"text","text":"ok"}]}"#;
    assert_eq!(strict_assistant(clean), Cleaned::Same);
    // Every shape agrees with the parsing path.
    for l in [
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":"a \"text\": \"\""}]}"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text" : ""},{"type":"tool_use","id":"a","name":"R","input":{}}]}"#,
    ] {
        let want = strict_assistant_line(l).unwrap_or_else(|| l.to_string());
        let got = match strict_assistant(l) {
            Cleaned::Same => l.to_string(),
            Cleaned::Spliced(r) => format!("{ASSISTANT_HEAD}{r}"),
            Cleaned::Owned(o) => o,
        };
        let (w, g): (Value, Value) = (
            serde_json::from_str(&want).unwrap(),
            serde_json::from_str(&got).unwrap(),
        );
        assert_eq!(w, g, "{l}");
    }
}

#[test]
fn strict_lines_keep_signed_and_redacted_blocks() {
    let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"S"},{"type":"redacted_thinking","data":"D"},{"type":"thinking","thinking":"u"},{"type":"text","text":""},{"type":"tool_use","id":"a","name":"Read","input":{}}]}"#;
    assert_eq!(
        strict_assistant_line(l).unwrap(),
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"S"},{"type":"redacted_thinking","data":"D"},{"type":"tool_use","id":"a","name":"Read","input":{}}]}"#
    );
    let clean = r#"{"role":"assistant","content":[{"type":"text","text":"ok"}]}"#;
    assert_eq!(strict_assistant_line(clean), None);
}

#[test]
fn breakpoints_roll_with_the_conversation() {
    let plain = |l: &'static str| std::borrow::Cow::Borrowed(l);
    let u = r#"{"role":"user","content":"hi"}"#;
    let tr =
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}"#;
    let a = r#"{"role":"assistant","content":[{"type":"text","text":"ok"}]}"#;
    assert_eq!(with_breakpoint(u), None);
    assert!(with_breakpoint(tr)
        .unwrap()
        .ends_with(r#""content":"x","cache_control":{"type":"ephemeral"}}]}"#));
    let idx = |ls: &[&'static str]| -> Vec<usize> {
        breakpoints(ls, plain).into_iter().map(|(i, _)| i).collect()
    };
    // A first request: nothing to mark but the system prompt and tools.
    assert_eq!(idx(&[u]), Vec::<usize>::new());
    // A tool loop: the results, and the previous request's end.
    assert_eq!(idx(&[u, a, tr]), vec![2]);
    assert_eq!(idx(&[u, a, tr, a, tr]), vec![2, 4]);
    // A new user text: the answer before it rolls, the previous end stays.
    assert_eq!(idx(&[u, a, tr, a, u]), vec![2, 3]);
    assert_eq!(idx(&[u, a, tr, a, u, a, tr]), vec![3, 6]);
    assert_eq!(
        tools_with_breakpoint(r#"[{"name":"A"},{"name":"B"}]"#).unwrap(),
        r#"[{"name":"A"},{"name":"B","cache_control":{"type":"ephemeral"}}]"#
    );
    assert_eq!(
        tools_with_breakpoint(r#"[{"name":"A"},{}]"#).unwrap(),
        r#"[{"name":"A"},{"cache_control":{"type":"ephemeral"}}]"#
    );
    for not_objects in ["[]", r#"["a"]"#, "{}", "", r#"[{"a":1},2]"#] {
        assert_eq!(tools_with_breakpoint(not_objects), None, "{not_objects}");
    }
    // The splice writes what a round trip through Value wrote, on the real schemas.
    let builtin = crate::tools::TOOLS_JSON_COMPACT;
    let mut v: Value = serde_json::from_str(builtin).unwrap();
    let last = v.as_array_mut().unwrap().last_mut().unwrap();
    last.as_object_mut()
        .unwrap()
        .insert("cache_control".into(), json!({"type": "ephemeral"}));
    assert_eq!(tools_with_breakpoint(builtin).unwrap(), v.to_string());
}
