//! The mock server's script: an array of steps, matched to requests in order.
//!
//! A request takes the first unused step whose `when` substring occurs in the request
//! body, else the first unused step without `when`. A step with `"repeat": true` is never
//! used up.
use serde::Deserialize;
use serde_json::Value;
use std::sync::Mutex;

/// One scripted tool call.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub name: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub input: Option<Value>,
}

/// Token counts reported for a step.
#[derive(Debug, Clone, Copy, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StepUsage {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_creation: u64,
}

/// Another writer, simulated: a line appended to a file when the request arrives.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppendLine {
    pub path: std::path::PathBuf,
    pub line: String,
}

/// One scripted response (or fault).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Only for requests whose body contains this substring.
    #[serde(default)]
    pub when: Option<String>,
    /// Never used up.
    #[serde(default)]
    pub repeat: bool,
    #[serde(default)]
    pub thinking: Option<String>,
    /// Strict Anthropic mode: a `redacted_thinking` block after the thinking (only when the
    /// request turned thinking on).
    #[serde(default)]
    pub redacted_thinking: bool,
    #[serde(default)]
    pub text: Option<String>,
    /// A search the server ran before its text (web_search.rs): Anthropic's
    /// `server_tool_use` and `web_search_tool_result` blocks, a Responses `web_search_call`.
    #[serde(default)]
    pub web_search: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// `end_turn` (default), `tool_use` (default with tool calls), `max_tokens`, …
    #[serde(default)]
    pub stop: Option<String>,
    #[serde(default)]
    pub usage: Option<StepUsage>,
    /// Report usage in DeepSeek's words (`prompt_cache_hit_tokens` / `_miss_tokens`); set
    /// by the strict server for a DeepSeek model, never by a script.
    #[serde(skip)]
    pub deepseek_usage: bool,
    /// Split text, thinking and tool arguments into deltas of this many characters.
    #[serde(default)]
    pub chunk: Option<usize>,
    /// Pause between SSE events.
    #[serde(default)]
    pub delay_ms: u64,
    /// Fault: answer with this HTTP status and an error body.
    #[serde(default)]
    pub status: Option<u16>,
    /// With `status`: a `retry-after` header (seconds).
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// With a 3xx `status`: the `Location` header (a redirecting API, issue 42).
    #[serde(default)]
    pub location: Option<String>,
    /// Error message for `status` / `sse_error`.
    #[serde(default)]
    pub message: Option<String>,
    /// Fault: end the stream cleanly before its terminal event.
    #[serde(default)]
    pub cut: bool,
    /// Fault: sleep this long in the middle of the stream.
    #[serde(default)]
    pub stall_ms: u64,
    /// Fault: tool arguments that are not valid JSON.
    #[serde(default)]
    pub bad_json_args: bool,
    /// Fault: an in-stream error event (`overloaded_error` for Anthropic) right at the start.
    #[serde(default)]
    pub sse_error: bool,
    /// Before answering, append a line to a file (e.g. a session's conversation changing
    /// while the request is in flight).
    #[serde(default)]
    pub append: Option<AppendLine>,
    /// Replay of a real server: the body written verbatim, a string per write, a number
    /// a pause in milliseconds (keep-alives, stalls). Replaces the generated stream.
    #[serde(default)]
    pub raw: Option<Vec<Value>>,
    /// Wait this long before sending the response headers (a gateway in front of a slow
    /// prefill sends nothing until the first token).
    #[serde(default)]
    pub head_delay_ms: u64,
}

impl Step {
    pub fn stop_reason(&self) -> String {
        match &self.stop {
            Some(s) => s.clone(),
            None if !self.tool_calls.is_empty() => "tool_use".into(),
            None => "end_turn".into(),
        }
    }

    pub fn usage(&self) -> StepUsage {
        self.usage.unwrap_or(StepUsage {
            input: 10,
            output: 5,
            cache_read: 0,
            cache_creation: 0,
        })
    }

    /// The arguments text of tool call `i`.
    pub fn args(&self, i: usize) -> String {
        if self.bad_json_args {
            return "{\"oops\": ".to_string();
        }
        match self.tool_calls.get(i).and_then(|t| t.input.as_ref()) {
            Some(v) => v.to_string(),
            None => "{}".to_string(),
        }
    }

    /// The id of tool call `i` (`call_<i>` by default).
    pub fn call_id(&self, i: usize) -> String {
        self.tool_calls
            .get(i)
            .and_then(|t| t.id.clone())
            .unwrap_or_else(|| format!("call_{i}"))
    }
}

/// The steps plus which were used.
#[derive(Debug)]
pub struct Script {
    steps: Vec<Step>,
    used: Mutex<Vec<bool>>,
}

impl Script {
    /// Parse the script JSON (an array of steps, or `{"steps":[…]}`).
    pub fn parse(text: &str) -> anyhow::Result<Script> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| anyhow::anyhow!("mock script is not valid JSON: {e}"))?;
        let arr = match v {
            Value::Object(mut o) => o.remove("steps").unwrap_or(Value::Null),
            other => other,
        };
        let steps: Vec<Step> = serde_json::from_value(arr)
            .map_err(|e| anyhow::anyhow!("mock script: expected an array of steps: {e}"))?;
        let n = steps.len();
        Ok(Script {
            steps,
            used: Mutex::new(vec![false; n]),
        })
    }

    /// Pick the step for a request body (see the module doc).
    pub fn take(&self, body: &str) -> Option<Step> {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        let pick = self
            .steps
            .iter()
            .enumerate()
            .position(|(i, s)| !used[i] && s.when.as_deref().is_some_and(|w| body.contains(w)))
            .or_else(|| {
                self.steps
                    .iter()
                    .enumerate()
                    .position(|(i, s)| !used[i] && s.when.is_none())
            })?;
        if !self.steps[pick].repeat {
            used[pick] = true;
        }
        Some(self.steps[pick].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_order() {
        let s = Script::parse(
            r#"[{"text":"a"},{"when":"magic","text":"m"},{"text":"b","repeat":true}]"#,
        )
        .unwrap();
        assert_eq!(s.take("x magic y").unwrap().text.as_deref(), Some("m"));
        assert_eq!(s.take("magic").unwrap().text.as_deref(), Some("a"));
        assert_eq!(s.take("").unwrap().text.as_deref(), Some("b"));
        assert_eq!(s.take("").unwrap().text.as_deref(), Some("b"));
    }

    #[test]
    fn exhausted_and_errors() {
        let s = Script::parse(r#"{"steps":[{"text":"a"}]}"#).unwrap();
        assert!(s.take("").is_some());
        assert!(s.take("").is_none());
        assert!(Script::parse(r#"[{"txt":"typo"}]"#).is_err());
        assert!(Script::parse("nope").is_err());
    }
}
