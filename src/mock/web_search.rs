//! The scripted server's web search (a step's `"web_search": "query"`): the blocks and
//! items the hosted APIs send for a search their server ran, and the strict modes' rules
//! on what a client sends back (docs/providers.md#the-strict-anthropic-server). Anthropic:
//! a `server_tool_use` block (its input as `input_json_delta`s) and a
//! `web_search_tool_result` block with encrypted results; only offered when the request
//! has the `web_search_20250305` tool. Responses: a `web_search_call` output item.
use super::strict_anthropic::Refusal;
use serde_json::{json, Map, Value};

/// The id of the search of a step asking `query`.
pub fn search_id(query: &str) -> String {
    format!("srvtoolu_mock{:08x}", fnv(query))
}

/// The results' opaque content: derived from the query, so a client that changes it is
/// seen.
pub fn encrypted(query: &str) -> String {
    format!("EqgfCioIARgBIiQ{:08x}", fnv(query))
}

fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Anthropic's two blocks, as (content_block_start block, deltas).
pub fn anthropic_blocks(query: &str) -> Vec<(Value, Vec<Value>)> {
    let id = search_id(query);
    let input = json!({ "query": query }).to_string();
    vec![
        (
            json!({"type":"server_tool_use","id":id,"name":"web_search","input":{}}),
            vec![json!({"type":"input_json_delta","partial_json":input})],
        ),
        (
            json!({"type":"web_search_tool_result","tool_use_id":id,"content":[
                {"type":"web_search_result","url":"https://example.com/result","title":format!("Result for {query}"),"encrypted_content":encrypted(query),"page_age":null}
            ]}),
            Vec::new(),
        ),
    ]
}

/// The Responses `web_search_call` item: (as added, as done).
pub fn responses_item(query: &str) -> (Value, Value) {
    let id = format!("ws_mock{:08x}", fnv(query));
    (
        json!({"type":"web_search_call","id":id,"status":"in_progress"}),
        json!({"type":"web_search_call","id":id,"status":"completed","action":{"type":"search","query":query}}),
    )
}

/// Whether the request offers Anthropic's web search tool.
pub fn offered(v: &Value) -> bool {
    v["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["type"] == "web_search_20250305"))
}

/// Rules on Anthropic tools: a tool with a `type` is a server tool the API has, with its
/// documented members only; a custom tool has a name and an `input_schema`.
pub fn check_anthropic_tools(v: &Value) -> Result<(), Refusal> {
    for (i, t) in v["tools"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let Some(o) = t.as_object() else { continue };
        match o.get("type").and_then(Value::as_str) {
            None | Some("custom") => {
                if !o.contains_key("input_schema") {
                    return Err(Refusal::bad(format!(
                        "tools.{i}.custom.input_schema: Field required"
                    )));
                }
            }
            Some("web_search_20250305") => {
                const MEMBERS: &[&str] = &[
                    "type",
                    "name",
                    "max_uses",
                    "allowed_domains",
                    "blocked_domains",
                    "user_location",
                    "cache_control",
                ];
                if o.get("name").and_then(Value::as_str) != Some("web_search") {
                    return Err(Refusal::bad(format!(
                        "tools.{i}.web_search_20250305.name: Input should be 'web_search'"
                    )));
                }
                if let Some(k) = o.keys().find(|k| !MEMBERS.contains(&k.as_str())) {
                    return Err(Refusal::bad(format!(
                        "tools.{i}.web_search_20250305.{k}: Extra inputs are not permitted"
                    )));
                }
            }
            Some(other) => {
                return Err(Refusal::bad(format!("tools.{i}: Input tag '{other}' found using 'type' does not match any of the expected tags")));
            }
        }
    }
    Ok(())
}

/// Rules on server blocks sent back: documented members only, and each
/// `web_search_tool_result` follows the `server_tool_use` it answers in the same
/// assistant message, with the encrypted content the server issued.
pub fn check_anthropic_blocks(i: usize, blocks: &[Value]) -> Result<(), Refusal> {
    let mut searches: Vec<(&str, &str)> = Vec::new();
    for (j, b) in blocks.iter().enumerate() {
        let ty = b["type"].as_str().unwrap_or("");
        let members: &[&str] = match ty {
            "server_tool_use" => &["type", "id", "name", "input", "cache_control"],
            "web_search_tool_result" => &["type", "tool_use_id", "content", "cache_control"],
            _ => continue,
        };
        let o = b.as_object().cloned().unwrap_or_else(Map::new);
        if let Some(k) = o.keys().find(|k| !members.contains(&k.as_str())) {
            return Err(Refusal::bad(format!(
                "messages.{i}.content.{j}.{ty}.{k}: Extra inputs are not permitted"
            )));
        }
        if ty == "server_tool_use" {
            searches.push((
                b["id"].as_str().unwrap_or(""),
                b["input"]["query"].as_str().unwrap_or(""),
            ));
            continue;
        }
        let id = b["tool_use_id"].as_str().unwrap_or("");
        let Some((_, q)) = searches.iter().find(|(s, _)| *s == id) else {
            return Err(Refusal::bad(format!("messages.{i}.content.{j}: `web_search_tool_result` block with tool_use_id {id} has no corresponding `server_tool_use` block before it")));
        };
        let sent = b["content"][0]["encrypted_content"].as_str().unwrap_or("");
        if sent != encrypted(q) {
            return Err(Refusal::bad(format!("messages.{i}.content.{j}.web_search_tool_result.content.0.encrypted_content: Invalid encrypted content")));
        }
    }
    Ok(())
}

/// Rules on a Responses request: tools are functions or the `web_search` tool; a
/// `web_search_call` input item has its `id`, `status` and `action`.
pub fn check_responses(o: &Map<String, Value>) -> Option<(u16, String)> {
    for (i, t) in o
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        match t["type"].as_str() {
            Some("function" | "web_search" | "web_search_preview") => {}
            other => return Some((400, format!("Invalid value: '{}'. Supported values are: 'function', 'web_search', 'web_search_preview' (tools[{i}].type).", other.unwrap_or("")))),
        }
    }
    for (i, it) in o
        .get("input")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        if it["type"] != "web_search_call" {
            continue;
        }
        for k in ["id", "status", "action"] {
            if it.get(k).is_none() {
                return Some((
                    400,
                    format!("Missing required parameter: 'input[{i}].{k}'."),
                ));
            }
        }
    }
    None
}
