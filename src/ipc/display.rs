//! The display wire: the RESP frame each turn [`Event`] is shown as. The same frames travel
//! over the display pipe of the shell version (`--render` reads them, `--replay-frames`
//! writes them), so this is the one place inside the agent where a turn's frames are built.
use crate::ipc::resp::Frame;
use crate::protocol::{Checklist, Event};
use serde_json::Value;

/// The display frame of an event, if it has one (user input is only logged).
pub fn frame(e: &Event) -> Option<Frame> {
    Some(match e {
        Event::UserInput { .. } | Event::UserNotify { .. } => return None,
        Event::Text { content } => Frame::new(["TEXT", content.as_str()]),
        Event::Thinking { content } => Frame::new(["THINKING", content.as_str()]),
        Event::ToolCall {
            name,
            id,
            input,
            checklist,
        } => {
            let mut f = vec![
                "TOOL_CALL".to_string(),
                name.clone(),
                id.clone(),
                input.get().to_string(),
            ];
            match checklist {
                Some(c) => push_checklist(&mut f, c),
                None => {
                    if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(input.get()) {
                        for (k, v) in m {
                            f.push(k);
                            f.push(match v {
                                Value::String(s) => s,
                                Value::Null => String::new(),
                                other => other.to_string(),
                            });
                        }
                    }
                }
            }
            Frame::new(f)
        }
        Event::ToolResult {
            tool_use_id,
            name,
            content,
            checklist,
            ..
        } => {
            let mut f = vec![
                "TOOL_RESULT".to_string(),
                tool_use_id.clone(),
                name.clone(),
                content.clone(),
            ];
            if let Some(c) = checklist {
                push_checklist(&mut f, c);
            }
            Frame::new(f)
        }
        Event::Usage { tokens, speed, .. } => Frame::new(
            [
                tokens.input_tokens,
                tokens.output_tokens,
                tokens.cache_read_input_tokens,
                tokens.cache_creation_input_tokens,
                *speed,
            ]
            .iter()
            .map(|n| n.to_string())
            .fold(vec!["USAGE".to_string()], |mut v, n| {
                v.push(n);
                v
            }),
        ),
        Event::Stop { reason } => Frame::new(["STOP", reason.as_str()]),
        Event::ContextUpdate { trigger, .. } => {
            Frame::new(["CONTEXT_UPDATE", "compact", trigger.as_str()])
        }
        Event::Error { message } => Frame::new(["ERROR", message.as_str()]),
        Event::Retry => Frame::new(["RETRY"]),
    })
}

fn push_checklist(f: &mut Vec<String>, c: &Checklist) {
    f.extend([
        "checklist".to_string(),
        c.markdown.clone(),
        "summary".to_string(),
        c.summary.clone(),
    ]);
}

/// A plain note for the display (not an event): shown like an error line.
pub fn error_frame(message: &str) -> Frame {
    Frame::new(["ERROR", message])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{StopReason, Tokens, UsageKind};

    fn fields(f: &Frame) -> Vec<String> {
        (0..f.len()).map(|i| f.field(i)).collect()
    }

    #[test]
    fn events_become_the_display_frames() {
        let e = Event::tool_call("Bash", "t1", r#"{"command":"ls","n":2}"#, None);
        assert_eq!(
            fields(&frame(&e).unwrap()),
            [
                "TOOL_CALL",
                "Bash",
                "t1",
                r#"{"command":"ls","n":2}"#,
                "command",
                "ls",
                "n",
                "2"
            ]
        );
        let u = Event::Usage {
            tokens: Tokens {
                input_tokens: 100,
                output_tokens: 20,
                cache_read_input_tokens: 0,
                cache_creation_input_tokens: 5,
            },
            kind: UsageKind::Agent,
            sub_session_id: None,
            speed: 12,
        };
        assert_eq!(
            fields(&frame(&u).unwrap()),
            ["USAGE", "100", "20", "0", "5", "12"]
        );
        assert_eq!(
            fields(&frame(&Event::context_update("auto")).unwrap()),
            ["CONTEXT_UPDATE", "compact", "auto"]
        );
        assert_eq!(
            fields(&frame(&Event::stop(StopReason::EndTurn)).unwrap()),
            ["STOP", "end_turn"]
        );
        assert!(frame(&Event::UserInput {
            content: "x".into()
        })
        .is_none());
    }
}
