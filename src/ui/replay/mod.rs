//! Replay of events.jsonl (docs/replay.md): selection of the last N turns (read
//! backwards from the end, see `replay_select`), translation of each line into the same
//! RESP display frames as `awk/event_replay.awk`, and the `--replay`, `--replay-frames`
//! and `--render` commands.
//!
//! Two flavours: the *reference* frames (what the shell replay prints, byte for byte) and
//! the *rich* frames, which add ASYNC_TASK_RESULT, CONTEXT_UPDATE, USER_NOTIFY and REWIND for
//! `async_task_result`, `context_update`, `user_notify` and `rewind` events (the awk does the same
//! with `-v er_rich=1`). The human replays (`--replay`, the interactive start) are rich.
use crate::ipc::resp::Frame;
use crate::ui::display::Display;
use crate::ui::jscan::{self, Kind, Member, Span};
use crate::ui::replay_select;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

/// The shell-compatible replay stage, embedded.
pub const REPLAY_AWK: &str = include_str!("../../../awk/event_replay.awk");

/// Turns replayed by default.
pub const DEFAULT_TURNS: usize = 10;

/// Tool results are cut to this many bytes (+ `...`), as in the reference.
const RESULT_CUT: usize = 200;

struct Line<'a> {
    s: &'a [u8],
    members: Vec<Member>,
}

impl<'a> Line<'a> {
    fn find(&self, k: &str) -> Option<Span> {
        self.members
            .iter()
            .find(|(key, _)| key == k.as_bytes())
            .map(|(_, v)| *v)
    }

    fn text_of(&self, v: Span) -> Vec<u8> {
        let raw = &self.s[v.start..v.end];
        if v.kind == Kind::Str {
            jscan::decode(raw)
        } else {
            raw.to_vec()
        }
    }

    /// A string member, decoded; empty when missing or not a string.
    fn str(&self, k: &str) -> Vec<u8> {
        match self.find(k) {
            Some(v) if v.kind == Kind::Str => jscan::decode(&self.s[v.start..v.end]),
            _ => Vec::new(),
        }
    }

    /// A member as text: strings decoded, other values raw; empty when missing.
    fn txt(&self, k: &str) -> Vec<u8> {
        self.find(k).map(|v| self.text_of(v)).unwrap_or_default()
    }
}

fn tool_call(line: &Line, name: Vec<u8>, id: Vec<u8>, input: Option<Span>) -> Frame {
    let mut fields = vec![b"TOOL_CALL".to_vec(), name, id];
    match input {
        None => fields.push(b"{}".to_vec()),
        Some(v) => {
            fields.push(line.s[v.start..v.end].to_vec());
            for (k, iv) in jscan::object_members(line.s, v) {
                fields.push(k);
                fields.push(line.text_of(iv));
            }
        }
    }
    Frame(fields)
}

fn legacy_assistant(line: &Line, emit: &mut dyn FnMut(Frame)) {
    let t = line.str("text");
    if !t.is_empty() {
        emit(Frame(vec![b"TEXT".to_vec(), t]));
    }
    let Some(calls) = line.find("tool_calls") else {
        return;
    };
    if calls.kind != Kind::Arr {
        return;
    }
    for item in jscan::array_items(line.s, calls) {
        if item.kind != Kind::Obj {
            continue;
        }
        let m = jscan::object_members(line.s, item);
        let sub = Line {
            s: line.s,
            members: m,
        };
        emit(tool_call(
            &sub,
            sub.str("name"),
            sub.str("id"),
            sub.find("input"),
        ));
    }
}

/// Translate one events.jsonl line (without its newline) into display frames, exactly
/// as `awk/event_replay.awk` does (`rich` = `-v er_rich=1`). Invalid lines give nothing.
pub fn line_frames(raw: &[u8], rich: bool, emit: &mut dyn FnMut(Frame)) {
    let Some(members) = jscan::object_line(raw) else {
        return;
    };
    let line = Line { s: raw, members };
    let one = |kind: &str, v: Vec<u8>| Frame(vec![kind.as_bytes().to_vec(), v]);
    match line.str("type").as_slice() {
        t @ (b"user_input" | b"text" | b"thinking") => {
            let c = line.str("content");
            if !c.is_empty() {
                let kind = match t {
                    b"user_input" => "USER_MESSAGE",
                    b"text" => "TEXT",
                    _ => "THINKING",
                };
                emit(one(kind, c));
            }
        }
        b"tool_call" => emit(tool_call(
            &line,
            line.str("name"),
            line.str("id"),
            line.find("input"),
        )),
        b"tool_result" => {
            let mut c = line.str("content");
            if c.len() > RESULT_CUT {
                c.truncate(RESULT_CUT);
                c.extend_from_slice(b"...");
            }
            emit(Frame(vec![
                b"TOOL_RESULT".to_vec(),
                line.str("tool_use_id"),
                line.str("name"),
                c,
            ]));
        }
        b"sub_agent_result" => emit(Frame(vec![
            b"AGENT_RESULT".to_vec(),
            line.str("session_id"),
            line.str("status"),
            line.txt("input_tokens"),
            line.txt("output_tokens"),
            line.str("thinking"),
            line.str("text"),
        ])),
        b"error" => emit(one("ERROR", line.str("message"))),
        b"user_message" => emit(one("USER_MESSAGE", line.str("content"))),
        b"assistant_message" => legacy_assistant(&line, emit),
        b"async_task_result" if rich => emit(Frame(vec![
            b"ASYNC_TASK_RESULT".to_vec(),
            line.str("task_id"),
            line.txt("exit_code"),
            line.str("output"),
        ])),
        b"context_update" if rich => emit(Frame(vec![
            b"CONTEXT_UPDATE".to_vec(),
            line.str("kind"),
            line.str("trigger"),
        ])),
        b"user_notify" if rich => emit(one("USER_NOTIFY", line.str("content"))),
        b"rewind" if rich => emit(Frame(vec![
            b"REWIND".to_vec(),
            line.str("action"),
            line.txt("to"),
            line.txt("turns"),
            line.txt("restored"),
        ])),
        _ => {}
    }
}

/// Stream the frames of the last `turns` turns of `events_path` to `f`. A missing file
/// replays nothing.
pub fn for_each_frame(
    events_path: &Path,
    turns: usize,
    rich: bool,
    f: &mut dyn FnMut(Frame),
) -> io::Result<()> {
    let mut file = match File::open(events_path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let start = replay_select::start_offset(&mut file, turns)?;
    file.seek(SeekFrom::Start(start))?;
    let mut r = BufReader::with_capacity(64 * 1024, file);
    let mut line = Vec::new();
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        line_frames(&line, rich, f);
    }
}

/// The reference replay frames of the last `turns` turns (what the awk prints).
pub fn replay_frames(events_path: &Path, turns: usize) -> Vec<Frame> {
    let mut v = Vec::new();
    let _ = for_each_frame(events_path, turns, false, &mut |fr| v.push(fr));
    v
}

/// The rich replay frames (adds background-task results, compactions, injections).
pub fn replay_frames_rich(events_path: &Path, turns: usize) -> Vec<Frame> {
    let mut v = Vec::new();
    let _ = for_each_frame(events_path, turns, true, &mut |fr| v.push(fr));
    v
}

/// Render the rich replay of the last `turns` turns through `display`. Returns whether
/// anything was shown (the caller prints the blank line after a real replay only). Ends
/// at a line start when something was shown.
pub fn replay_to_terminal(
    events_path: &Path,
    turns: usize,
    display: &mut Display,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> bool {
    let mut shown = false;
    let res = for_each_frame(events_path, turns, true, &mut |fr| {
        shown = true;
        display.render(&fr, out, err);
    });
    if let Err(e) = res {
        let _ = writeln!(err, "Warning: cannot replay {}: {e}", events_path.display());
    }
    if shown {
        display.finish(out);
    }
    shown
}

#[cfg(test)]
mod tests;
