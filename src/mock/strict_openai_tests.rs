//! One test per rule of the strict mode, named after the rule.
use super::*;
use crate::mock::strict_deepseek::DEEPSEEK_REPLAY;
use serde_json::json;

const OAI: &str = "api.openai.com";
const DS: &str = "api.deepseek.com";

fn refused(wire: Wire, host: &str, path: &str, body: Value) -> Option<(u16, String)> {
    check(wire, host, path, &body.to_string(), &[])
}

fn chat(body: Value) -> Option<(u16, String)> {
    refused(Wire::OpenAi, OAI, "/v1/chat/completions", body)
}

fn responses(body: Value) -> Option<(u16, String)> {
    refused(Wire::Responses, OAI, "/v1/responses", body)
}

#[test]
fn unknown_parameter_at_official_host() {
    let r = chat(json!({"model":"gpt-4o","messages":[],"thinking":{"type":"enabled"}}));
    assert_eq!(
        r,
        Some((
            400,
            "Unrecognized request argument supplied: thinking".into()
        ))
    );
    let r = responses(json!({"model":"gpt-5.5","input":[],"thinking":{}}));
    assert_eq!(r.unwrap().1, "Unknown parameter: 'thinking'.");
    // A local server is not OpenAI: no such rule there.
    let b = json!({"model":"m","messages":[],"thinking":{"type":"enabled"}});
    assert_eq!(
        refused(Wire::OpenAi, "127.0.0.1:4", "/v1/chat/completions", b),
        None
    );
}

#[test]
fn max_tokens_on_reasoning_model() {
    for m in ["gpt-5", "o3", "gpt-5.5"] {
        let r = chat(json!({"model":m,"messages":[],"max_tokens":10}));
        assert_eq!(r, Some((400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.".into())), "{m}");
        assert_eq!(
            chat(json!({"model":m,"messages":[],"max_completion_tokens":10})),
            None
        );
    }
    assert_eq!(
        chat(json!({"model":"gpt-4o","messages":[],"max_tokens":10})),
        None
    );
}

#[test]
fn reasoning_effort_on_non_reasoning_model() {
    for m in ["gpt-4o", "gpt-4.1"] {
        let r = chat(json!({"model":m,"messages":[],"reasoning_effort":"high"}));
        assert_eq!(
            r,
            Some((
                400,
                "Unsupported parameter: 'reasoning_effort' is not supported with this model."
                    .into()
            ))
        );
    }
    let r = responses(json!({"model":"gpt-4o","input":[],"reasoning":{"effort":"high"}}));
    assert!(r.unwrap().1.contains("'reasoning.effort' is not supported"));
}

#[test]
fn unsupported_effort_values() {
    let r = chat(json!({"model":"o3","messages":[],"reasoning_effort":"xhigh"}));
    assert_eq!(r.unwrap().1, "Unsupported value: 'reasoning_effort' does not support 'xhigh' with this model. Supported values are: 'low', 'medium', 'high'.");
    let r = responses(json!({"model":"gpt-5","input":[],"reasoning":{"effort":"none"}}));
    assert!(r
        .unwrap()
        .1
        .starts_with("Unsupported value: 'reasoning.effort'"));
    assert_eq!(
        chat(json!({"model":"gpt-5.5","messages":[],"reasoning_effort":"xhigh"})),
        None
    );
}

#[test]
fn no_undocumented_message_fields_at_official_host() {
    let m = json!([{"role":"assistant","reasoning_content":"x","content":"y"}]);
    let r = chat(json!({"model":"gpt-4o","messages":m}));
    assert!(r.unwrap().1.contains("'reasoning_content' was unexpected"));
}

#[test]
fn unknown_model_at_official_host() {
    let r = chat(json!({"model":"deepseek-v4-flash","messages":[]}));
    assert_eq!(r.unwrap().0, 404);
}

#[test]
fn tool_message_must_answer_a_tool_call() {
    let m =
        json!([{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c1","content":"r"}]);
    let r = refused(
        Wire::OpenAi,
        "127.0.0.1:4",
        "/v1/chat/completions",
        json!({"model":"m","messages":m}),
    );
    assert!(r.unwrap().1.contains("role 'tool' must be a response"));
}

#[test]
fn function_call_output_must_match_a_function_call() {
    let input = json!([{"type":"function_call","call_id":"c1","name":"Read","arguments":"{}"},{"type":"function_call_output","call_id":"c2","output":"x"}]);
    let r = refused(
        Wire::Responses,
        "127.0.0.1:4",
        "/v1/responses",
        json!({"model":"m","input":input}),
    );
    assert_eq!(
        r.unwrap().1,
        "No tool call found for function call output with call_id c2."
    );
}

#[test]
fn with_store_false_reasoning_items_must_be_replayed() {
    let call = json!({"type":"function_call","call_id":"c1","name":"Read","arguments":"{}"});
    let out = json!({"type":"function_call_output","call_id":"c1","output":"x"});
    let base = |input: Value| json!({"model":"gpt-5.5","input":input,"store":false,"reasoning":{"effort":"high"},"include":["reasoning.encrypted_content"]});
    let r = responses(base(json!([{"role":"user","content":"go"}, call, out])));
    assert!(r.unwrap().1.contains("has no reasoning item before it"));
    let item =
        json!({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAmock-1"});
    assert_eq!(
        responses(base(
            json!([{"role":"user","content":"go"}, item, call, out])
        )),
        None
    );
    // An item without its encrypted content cannot be found when nothing is stored.
    let bare = json!({"type":"reasoning","id":"rs_1","summary":[]});
    let r = responses(base(
        json!([{"role":"user","content":"go"}, bare, call, out]),
    ));
    assert!(r
        .unwrap()
        .1
        .contains("Items are not persisted when `store` is set to false"));
    // Encrypted content needs store:false.
    let r =
        responses(json!({"model":"gpt-5.5","input":[],"include":["reasoning.encrypted_content"]}));
    assert!(r.unwrap().1.contains("store"));
}

#[test]
fn deepseek_paths() {
    let b = json!({"model":"deepseek-v4-flash","messages":[]});
    for ok in ["/chat/completions", "/v1/chat/completions"] {
        assert_eq!(refused(Wire::OpenAi, DS, ok, b.clone()), None, "{ok}");
    }
    let r = refused(Wire::Anthropic, DS, "/anthropic/messages", b.clone());
    assert_eq!(r.unwrap().0, 404);
    assert_eq!(
        refused(Wire::Anthropic, DS, "/anthropic/v1/messages", b),
        None
    );
    let r = refused(Wire::OpenAi, OAI, "/chat/completions", json!({}));
    assert_eq!(r.unwrap().0, 404);
}

#[test]
fn deepseek_thinking_requires_reasoning_content_with_tool_calls() {
    let msgs = json!([{"role":"user","content":"x"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]);
    let b = json!({"model":"deepseek-v4-flash","messages":msgs});
    let r = refused(Wire::OpenAi, DS, "/chat/completions", b);
    assert_eq!(r.unwrap().1, DEEPSEEK_REPLAY);
    let b = json!({"model":"deepseek-v4-flash","messages":msgs,"thinking":{"type":"disabled"}});
    assert_eq!(refused(Wire::OpenAi, DS, "/chat/completions", b), None);
    let r = refused(
        Wire::OpenAi,
        DS,
        "/chat/completions",
        json!({"model":"deepseek-chat","messages":[]}),
    );
    assert!(r.unwrap().1.contains("Model Not Exist"));
}
