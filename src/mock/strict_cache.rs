//! The strict Anthropic server's prompt cache: a simulation of the documented rule, not of
//! Anthropic's implementation (docs/providers.md#prompt-caching).
//!
//! The prompt is read as its blocks in the API's cache order — tools, then system, then
//! messages — each block its JSON without `cache_control` (moving a breakpoint does not
//! change the prefix) and each message's blocks tagged with its role. A block carrying
//! `cache_control` is a breakpoint. For each breakpoint the server looks for the longest
//! cached prefix ending at it or at one of the 20 blocks before it (the API's lookback);
//! the longest hit is read (`cache_read_input_tokens`), the prefix up to the last
//! breakpoint beyond it is written (`cache_creation_input_tokens`) when it is at least the
//! model's minimum cacheable length, and the rest is `input_tokens`. Tokens are estimated
//! as bytes / 4. Entries never expire within a run (the API keeps them 5 minutes after
//! their last use, far longer than a test).
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// The API's lookback from a breakpoint, in blocks.
const LOOKBACK: usize = 20;

/// Token counts of one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub read: u64,
    pub creation: u64,
}

/// Cached prefixes: hash of (model, blocks 0..=i) → the prefix's tokens.
#[derive(Debug, Default)]
pub struct Cache {
    entries: Mutex<HashMap<u64, u64>>,
}

/// One block: its canonical text and whether it is a breakpoint.
fn blocks(v: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |role: &str, b: &Value| {
        let marked = b.get("cache_control").is_some();
        let mut b = b.clone();
        strip_markers(&mut b);
        out.push((format!("{role}:{b}"), marked));
    };
    for t in v["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        push("tool", t);
    }
    match &v["system"] {
        Value::String(s) => push("system", &serde_json::json!({"type":"text","text":s})),
        Value::Array(a) => a.iter().for_each(|b| push("system", b)),
        _ => {}
    }
    for m in v["messages"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let role = m["role"].as_str().unwrap_or("");
        match &m["content"] {
            Value::String(s) => push(role, &serde_json::json!({"type":"text","text":s})),
            Value::Array(a) => a.iter().for_each(|b| push(role, b)),
            _ => {}
        }
    }
    out
}

fn strip_markers(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("cache_control");
            o.values_mut().for_each(strip_markers);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_markers),
        _ => {}
    }
}

impl Cache {
    /// The usage of request `v` (see the module doc), recording its breakpoints' prefixes.
    pub fn usage(&self, v: &Value, min_tokens: u64) -> Usage {
        let model = v["model"].as_str().unwrap_or("");
        let bl = blocks(v);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        model.hash(&mut h);
        let mut keys = Vec::with_capacity(bl.len());
        let mut tokens = Vec::with_capacity(bl.len());
        let mut bytes = 0usize;
        for (text, _) in &bl {
            text.hash(&mut h);
            keys.push(h.finish());
            bytes += text.len();
            tokens.push((bytes as u64).div_ceil(4));
        }
        let total = tokens.last().copied().unwrap_or(0);
        let marks: Vec<usize> = (0..bl.len()).filter(|&i| bl[i].1).collect();
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let read = marks
            .iter()
            .flat_map(|&b| (b.saturating_sub(LOOKBACK)..=b).rev())
            .filter(|&j| entries.contains_key(&keys[j]))
            .map(|j| tokens[j])
            .max()
            .unwrap_or(0);
        let mut written = read;
        for &b in &marks {
            if tokens[b] >= min_tokens && tokens[b] > read {
                entries.insert(keys[b], tokens[b]);
                written = written.max(tokens[b]);
            }
        }
        Usage {
            input: total - written,
            read,
            creation: written - read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(n: usize, marks: &[usize]) -> Value {
        let msgs: Vec<Value> = (0..n)
            .map(|i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                let mut b =
                    json!({"type":"text","text":format!("message {i} {}", "x".repeat(400))});
                if marks.contains(&i) {
                    b["cache_control"] = json!({"type":"ephemeral"});
                }
                json!({"role": role, "content": [b]})
            })
            .collect();
        json!({"model":"claude-sonnet-5-5","messages":msgs})
    }

    #[test]
    fn a_prefix_is_written_then_read_and_moving_the_marker_keeps_it() {
        let c = Cache::default();
        let u1 = c.usage(&req(3, &[2]), 100);
        assert_eq!((u1.read, u1.input), (0, 0));
        assert!(u1.creation > 300);
        let u2 = c.usage(&req(5, &[2, 4]), 100);
        assert_eq!(u2.read, u1.creation);
        assert!(u2.creation > 0);
        // The marker moved on (the old one dropped): the lookback still finds the prefix.
        let u3 = c.usage(&req(7, &[6]), 100);
        assert_eq!(u3.read, u1.creation + u2.creation);
    }

    #[test]
    fn no_marker_no_cache_and_short_prefixes_are_not_written() {
        let c = Cache::default();
        let u = c.usage(&req(3, &[]), 100);
        assert_eq!((u.read, u.creation), (0, 0));
        assert!(u.input > 300);
        let u = c.usage(&req(3, &[0]), 1_000_000);
        assert_eq!((u.read, u.creation), (0, 0));
    }

    #[test]
    fn beyond_the_lookback_only_the_kept_previous_breakpoint_hits() {
        let c = Cache::default();
        c.usage(&req(3, &[2]), 10);
        // 30 blocks later, one marker at the end: nothing within 20 blocks is cached.
        assert_eq!(c.usage(&req(33, &[32]), 10).read, 0);
        let c = Cache::default();
        c.usage(&req(3, &[2]), 10);
        assert!(c.usage(&req(33, &[2, 32]), 10).read > 0);
    }
}
