//! The reader threads of a stdio server: its stderr kept as a short tail for error
//! messages, its stdout read line by line (capped, lines.rs) and routed: responses to the
//! waiting caller, server requests answered on a thread each (an elicitation may wait for a
//! person while the reader goes on), notifications noted. A response too large to take in
//! fails its call at once.
use super::client::{Pending, RpcError};
use super::lines::{overlong_id, read_line_capped, Line, MAX_LINE};
use super::serve::Serve;
use serde_json::Value;
use std::io::{BufReader, Read, Write};
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(super) fn read_stderr(mut r: impl Read, tail: Arc<Mutex<String>>) {
    let mut buf = [0u8; 4096];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut t = lock(&tail);
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                if t.len() > 8192 {
                    let cut = crate::tools::truncate::ceil_boundary(&t, t.len() - 4096);
                    t.drain(..cut);
                }
            }
        }
    }
}

/// A JSON-RPC response or error object as the caller's result.
pub(super) fn outcome(msg: &Value) -> Result<Value, RpcError> {
    match msg.get("error") {
        Some(e) => Err(RpcError::Server {
            code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("error")
                .to_string(),
        }),
        None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
    }
}

/// A response too large to read: the call it answers fails now. When its id cannot be
/// found at either end of a JSON object, every waiting call fails (none of them may wait for
/// an answer that was dropped); a request, a notification or a line that is not JSON
/// (a server's log) fails nothing.
pub(super) fn fail_too_large(pending: &Pending, clip: &[u8]) {
    let clip = clip
        .strip_prefix(b"data:")
        .unwrap_or(clip)
        .trim_ascii_start();
    let mut p = lock(pending);
    match overlong_id(clip) {
        Some(id) => {
            if let Some(tx) = p.remove(&id) {
                let _ = tx.send(Err(RpcError::TooLarge));
            }
        }
        None if clip.starts_with(b"{") && !String::from_utf8_lossy(clip).contains("\"method\"") => {
            for (_, tx) in p.drain() {
                let _ = tx.send(Err(RpcError::TooLarge));
            }
        }
        None => {}
    }
}

pub(super) fn read_stdout(
    r: impl Read,
    pending: Pending,
    dead: Arc<AtomicBool>,
    serve: Arc<Serve>,
    reply: Arc<Mutex<Option<ChildStdin>>>,
) {
    let mut reader = BufReader::new(r);
    let mut line = Vec::new();
    loop {
        match read_line_capped(&mut reader, &mut line, MAX_LINE) {
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong) => {
                fail_too_large(&pending, &line);
                line.shrink_to(1 << 16);
                continue;
            }
            Ok(Line::Whole) => {}
        }
        // Not JSON-RPC (servers sometimes log to stdout), or not UTF-8: skipped alike.
        let Ok(msg) = serde_json::from_slice::<Value>(line.trim_ascii()) else {
            continue;
        };
        let method = msg.get("method").and_then(Value::as_str);
        match (method, msg.get("id")) {
            (Some(m), Some(id)) => {
                let reply = reply.clone();
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                serve.spawn_answer(id.clone(), m.to_string(), params, move |answer| {
                    if let Some(w) = lock(&reply).as_mut() {
                        let _ = w.write_all(format!("{answer}\n").as_bytes());
                        let _ = w.flush();
                    }
                });
            }
            (Some(m), None) => serve.notified(m),
            (None, Some(id)) => {
                let Some(n) = id.as_u64() else { continue };
                let Some(tx) = lock(&pending).remove(&n) else {
                    continue;
                };
                let _ = tx.send(outcome(&msg));
            }
            (None, None) => {}
        }
    }
    dead.store(true, Ordering::SeqCst);
    for (_, tx) in lock(&pending).drain() {
        let _ = tx.send(Err(RpcError::Dead(String::new())));
    }
}
