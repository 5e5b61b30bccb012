//! The typed protocol of a turn: everything the agent loop produces is one [`Event`], and the
//! closed sets it names (stop reasons) are enums. An event serialises (serde) to the exact
//! bytes of its events.jsonl line — `type` first, then the fields in the reference order —
//! and `ipc::display` turns it into a display frame. Nothing inside the process builds a
//! RESP frame by hand and parses it back by position.
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// Why a model call stopped, in Anthropic's terms (the providers normalise to these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model asked for tools; another call follows.
    ToolUse,
    /// The answer was cut by the output-token limit.
    MaxTokens,
    /// A stop sequence ended the answer.
    StopSequence,
    /// The user interrupted the turn.
    Interrupted,
    /// Anything else a server sends, kept as it came.
    Other(String),
}

impl StopReason {
    /// Parse a normalised stop reason (`length` and `tool_calls` are OpenAI's names).
    pub fn parse(s: &str) -> StopReason {
        match s {
            "end_turn" | "stop" => StopReason::EndTurn,
            "tool_use" | "tool_calls" => StopReason::ToolUse,
            "max_tokens" | "length" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "interrupted" => StopReason::Interrupted,
            other => StopReason::Other(other.to_string()),
        }
    }

    /// The text written to events.jsonl and shown.
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::Interrupted => "interrupted",
            StopReason::Other(s) => s,
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Who made a model call, for the usage line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageKind {
    Agent,
    Compact,
    SubAgent,
}

/// Token counts of one model call (the usage line's fields, in its order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
}

/// TodoWrite's checklist, shown instead of the raw input and result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checklist {
    pub markdown: String,
    pub summary: String,
}

/// Why a compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactKind {
    Compact,
}

/// One thing a turn produced. Display-only fields are skipped by serde.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    UserInput {
        content: String,
    },
    /// An injected USER_NOTIFY text (our addition to the event catalogue).
    UserNotify {
        content: String,
    },
    Text {
        content: String,
    },
    Thinking {
        content: String,
    },
    ToolCall {
        name: String,
        id: String,
        /// The model's input, verbatim (validated JSON).
        input: Box<RawValue>,
        /// TodoWrite: the checklist is shown instead of the input's members.
        #[serde(skip)]
        checklist: Option<Checklist>,
    },
    ToolResult {
        tool_use_id: String,
        name: String,
        content: String,
        /// An MCP tool's `structuredContent` (absent for every other tool).
        #[serde(skip_serializing_if = "Option::is_none")]
        structured: Option<Box<RawValue>>,
        #[serde(skip)]
        checklist: Option<Checklist>,
    },
    Usage {
        #[serde(flatten)]
        tokens: Tokens,
        kind: UsageKind,
        #[serde(skip_serializing_if = "Option::is_none")]
        sub_session_id: Option<String>,
        /// Output tokens per second of the call (display and stats only).
        #[serde(skip)]
        speed: u64,
    },
    Stop {
        reason: StopReason,
    },
    ContextUpdate {
        kind: CompactKind,
        trigger: String,
    },
    Error {
        message: String,
    },
    Retry,
}

impl Event {
    /// The events.jsonl line (no newline).
    pub fn line(&self) -> String {
        // Serialising these types cannot fail: every field is a string, a number or raw JSON
        // that was validated when it was made.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{\"type\":\"error\"}"))
    }

    pub fn text(s: impl Into<String>) -> Event {
        Event::Text { content: s.into() }
    }

    pub fn thinking(s: impl Into<String>) -> Event {
        Event::Thinking { content: s.into() }
    }

    pub fn error(s: impl Into<String>) -> Event {
        Event::Error { message: s.into() }
    }

    pub fn stop(r: StopReason) -> Event {
        Event::Stop { reason: r }
    }

    pub fn context_update(trigger: impl Into<String>) -> Event {
        Event::ContextUpdate {
            kind: CompactKind::Compact,
            trigger: trigger.into(),
        }
    }

    /// A tool call; `input_raw` must be a JSON object (see `util::jsonl::normalize_raw_object`,
    /// which every caller applies first; anything else is recorded as `null`).
    pub fn tool_call(name: &str, id: &str, input_raw: &str, checklist: Option<Checklist>) -> Event {
        let input = RawValue::from_string(input_raw.to_string())
            .unwrap_or_else(|_| RawValue::NULL.to_owned());
        Event::ToolCall {
            name: name.to_string(),
            id: id.to_string(),
            input,
            checklist,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::events::ev;
    use crate::session::stats::Usage;

    #[test]
    fn lines_are_the_reference_bytes() {
        for s in [
            "",
            "plain",
            "quote \" backslash \\ nl \n tab \t",
            "ünï\u{1}\u{7f}😀 </script>",
        ] {
            assert_eq!(Event::text(s).line(), ev::text(s));
            assert_eq!(Event::thinking(s).line(), ev::thinking(s));
            assert_eq!(Event::error(s).line(), ev::error(s));
            assert_eq!(
                Event::UserInput { content: s.into() }.line(),
                ev::user_input(s)
            );
            assert_eq!(
                Event::UserNotify { content: s.into() }.line(),
                ev::user_notify(s)
            );
            assert_eq!(
                Event::ToolResult {
                    tool_use_id: "t1".into(),
                    name: "Bash".into(),
                    content: s.into(),
                    structured: None,
                    checklist: None
                }
                .line(),
                ev::tool_result("t1", "Bash", s)
            );
            assert_eq!(Event::context_update(s).line(), ev::context_update(s));
        }
        let raw = r#"{"command": "ls  -la", "n":1}"#;
        assert_eq!(
            Event::tool_call("Bash", "t1", raw, None).line(),
            ev::tool_call("Bash", "t1", raw)
        );
        let u = Usage {
            input: 100,
            output: 20,
            cache_read: 3,
            cache_creation: 5,
        };
        let tokens = Tokens {
            input_tokens: 100,
            output_tokens: 20,
            cache_read_input_tokens: 3,
            cache_creation_input_tokens: 5,
        };
        let usage = |kind, sub: Option<&str>| Event::Usage {
            tokens,
            kind,
            sub_session_id: sub.map(String::from),
            speed: 9,
        };
        assert_eq!(usage(UsageKind::Agent, None).line(), ev::usage(&u, "agent"));
        assert_eq!(
            usage(UsageKind::Compact, None).line(),
            ev::usage(&u, "compact")
        );
        assert_eq!(
            usage(UsageKind::SubAgent, Some("sub_x")).line(),
            ev::usage_sub_agent(&u, "sub_x")
        );
        for r in ["end_turn", "tool_use", "max_tokens", "interrupted", "weird"] {
            assert_eq!(Event::stop(StopReason::parse(r)).line(), ev::stop(r));
        }
        assert_eq!(Event::Retry.line(), ev::retry());
    }

    #[test]
    fn stop_reasons_are_normalised() {
        assert_eq!(StopReason::parse("length"), StopReason::MaxTokens);
        assert_eq!(StopReason::parse("tool_calls"), StopReason::ToolUse);
        assert_eq!(StopReason::parse("stop"), StopReason::EndTurn);
        assert_eq!(StopReason::parse("x").as_str(), "x");
    }
}
