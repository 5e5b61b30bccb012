//! The user turns of a session and where each starts in conversation.jsonl.
//!
//! Turns are numbered from events.jsonl (which keeps every line): each `user_input` event is
//! the next turn; a `rewind` event with `action` `rewind` drops the turns from its `to` on
//! (the next input is turn `to` again) and one with `action` `undo` puts them back. So the
//! numbers are those of the conversation as it is now, which `sessions show`, `rewind` and
//! `/rewind` all print.
//!
//! conversation.jsonl has no turn marks, so a turn's first line is found by its text: the
//! user line of turn N is the N-th live input, read backwards from the end of the file (a
//! compaction removed the head, so only the end is aligned). Lines of notifications, hook
//! feedback and tool results are passed over; a turn whose prompt never reached the file (a
//! hook blocked it) starts where the next one does.
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The live turns of a session: their inputs, oldest first (turn N is `inputs[N-1]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    pub inputs: Vec<String>,
    /// The highest rewind id seen (the next rewind is `last_id + 1`).
    pub last_id: u64,
}

/// Read the timeline from an events.jsonl (corrupt lines are skipped).
pub fn timeline(events: &Path) -> Timeline {
    let (evs, _) = crate::session::events::read_all(events);
    timeline_of(&evs)
}

/// [`timeline`] over parsed events.
pub fn timeline_of(evs: &[Value]) -> Timeline {
    let mut t = Timeline::default();
    let mut dropped: HashMap<u64, Vec<String>> = HashMap::new();
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    for v in evs {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "user_input" => t.inputs.push(
                v.get("content")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            ),
            "rewind" => {
                let id = num(v, "id");
                t.last_id = t.last_id.max(id);
                match v.get("action").and_then(Value::as_str) {
                    Some("rewind") => {
                        let keep = (num(v, "to").max(1) - 1) as usize;
                        if keep <= t.inputs.len() {
                            dropped.insert(id, t.inputs.split_off(keep));
                        }
                    }
                    Some("undo") => {
                        if let Some(d) = dropped.remove(&id) {
                            t.inputs.extend(d);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    t
}

/// The content of a real user-turn line (`"role":"user"` with string content).
fn user_text(line: &str) -> Option<String> {
    if !crate::session::conversation::is_user_turn_line(line) {
        return None;
    }
    let v: Value = serde_json::from_str(line).ok()?;
    if v.get("role")?.as_str()? != "user" {
        return None;
    }
    v.get("content")?.as_str().map(str::to_string)
}

/// Whether a user line's text is the message of the prompt `input`: the prompt itself,
/// maybe after an `[undo]` note and with attachments or hook context after a blank line.
fn is_message_of(text: &str, input: &str) -> bool {
    let starts = |t: &str| {
        t.strip_prefix(input)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("\n\n"))
    };
    if starts(text) {
        return true;
    }
    text.starts_with("[undo]")
        && text
            .split_once("\n\n")
            .is_some_and(|(_, rest)| starts(rest))
}

/// How far back a line may match when turns before it have no line (blocked prompts).
const SKIP_WINDOW: usize = 4;

/// For each turn 1..=inputs.len(), the index in `lines` where it starts, or `None` when it
/// is not in the file (compacted away). `lines` are the file's non-empty lines.
pub fn starts(inputs: &[String], lines: &[String]) -> Vec<Option<usize>> {
    let mut out = vec![None; inputs.len()];
    let mut j = inputs.len(); // the next turn to place (1-based), from the end
    let mut next_start = lines.len();
    for i in (0..lines.len()).rev() {
        if j == 0 {
            break;
        }
        let Some(text) = user_text(&lines[i]) else {
            continue;
        };
        let low = j.saturating_sub(SKIP_WINDOW - 1).max(1);
        let Some(k) = (low..=j)
            .rev()
            .find(|&k| is_message_of(&text, &inputs[k - 1]))
        else {
            continue; // a notification or hook feedback line
        };
        for slot in out.iter_mut().take(j).skip(k) {
            *slot = Some(next_start); // turns with no line start where the next one does
        }
        out[k - 1] = Some(i);
        next_start = i;
        j = k - 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::conversation::user_text_line;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn numbering_follows_rewinds_and_their_undo() {
        let evs: Vec<Value> = [
            r#"{"type":"user_input","content":"a"}"#,
            r#"{"type":"user_input","content":"b"}"#,
            r#"{"type":"user_input","content":"c"}"#,
            r#"{"type":"rewind","action":"rewind","id":1,"to":2}"#,
            r#"{"type":"user_input","content":"d"}"#,
            r#"{"type":"rewind","action":"rewind","id":2,"to":2}"#,
            r#"{"type":"rewind","action":"undo","id":2}"#,
        ]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        let t = timeline_of(&evs);
        assert_eq!(t.inputs, s(&["a", "d"]));
        assert_eq!(t.last_id, 2);
    }

    #[test]
    fn starts_skip_other_user_lines_and_find_compacted_turns() {
        let asst = r#"{"role":"assistant","content":[{"type":"text","text":"ok"}]}"#;
        let lines = vec![
            // turn 1 ("a") was compacted away
            user_text_line("b"),
            asst.to_string(),
            user_text_line("<notification>x</notification>"),
            asst.to_string(),
            user_text_line("[undo] The user undid…\n\nc\n\n<attached>"),
            asst.to_string(),
            // turn 4 ("d") was blocked by a hook: no line
            user_text_line("e"),
        ];
        let got = starts(&s(&["a", "b", "c", "d", "e"]), &lines);
        assert_eq!(got, vec![None, Some(0), Some(4), Some(6), Some(6)]);
        assert!(!is_message_of("bee", "b"));
    }
}
