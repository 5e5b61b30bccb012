//! The strict OpenAI/DeepSeek server's prompt cache: a simulation of the documented
//! automatic prefix caching, not of either vendor's implementation
//! (docs/providers.md#prompt-caching).
//!
//! OpenAI: a prompt of at least 1024 tokens is cached automatically; a later request that
//! starts with a previously seen prefix reads the longest such prefix, in 128-token
//! increments, reported as `prompt_tokens_details.cached_tokens` (chat) or
//! `input_tokens_details.cached_tokens` (Responses) and billed at the cached input price.
//! DeepSeek: the same on disk in 64-token units, reported as `prompt_cache_hit_tokens` /
//! `prompt_cache_miss_tokens`.
//!
//! The prompt is read in the order the vendors cache it — tools, then the instructions
//! and messages (chat: `messages`; Responses: `instructions` then `input` items) — each
//! piece's JSON text; tokens are estimated as bytes / 4. Every request's prefixes at each
//! unit boundary are remembered (per model); entries never expire within a run.
use serde_json::Value;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// Seen prefixes: hash of (model, the prompt's first k units).
#[derive(Debug, Default)]
pub struct PrefixCache {
    seen: Mutex<HashSet<u64>>,
}

/// Token counts of one request: the whole prompt and the part read from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixUsage {
    pub prompt: u64,
    pub cached: u64,
}

/// The prompt's text in cache order.
fn prompt_text(v: &Value) -> String {
    let mut s = String::new();
    if let Some(t) = v.get("tools") {
        s.push_str(&t.to_string());
    }
    if let Some(i) = v.get("instructions").and_then(Value::as_str) {
        s.push_str(i);
    }
    for key in ["messages", "input"] {
        match v.get(key) {
            Some(Value::Array(a)) => a.iter().for_each(|m| s.push_str(&m.to_string())),
            Some(Value::String(t)) => s.push_str(t),
            _ => {}
        }
    }
    s
}

impl PrefixCache {
    /// The usage of request `v`: cached is the longest seen prefix in whole `unit`s of
    /// tokens, 0 below `min` tokens; then every unit boundary of this prompt is remembered.
    pub fn usage(&self, v: &Value, unit: u64, min: u64) -> PrefixUsage {
        let model = v["model"].as_str().unwrap_or("");
        let text = prompt_text(v);
        let bytes = text.as_bytes();
        let prompt = (bytes.len() as u64).div_ceil(4);
        let step = (unit.max(1) * 4) as usize;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        model.hash(&mut h);
        let keys: Vec<u64> = bytes
            .chunks(step)
            .filter(|c| c.len() == step)
            .map(|c| {
                h.write(c);
                h.finish()
            })
            .collect();
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let hit_units = keys.iter().take_while(|k| seen.contains(k)).count() as u64;
        let mut cached = hit_units * unit;
        if prompt < min || cached < min {
            cached = 0;
        }
        if prompt >= min {
            seen.extend(keys);
        }
        PrefixUsage { prompt, cached }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chat(n: usize) -> Value {
        let msgs: Vec<Value> = (0..n)
            .map(|i| json!({"role": "user", "content": format!("{i} {}", "x".repeat(2000))}))
            .collect();
        json!({"model": "gpt-5.5", "messages": msgs})
    }

    #[test]
    fn a_longer_prompt_reads_its_seen_prefix_in_whole_units() {
        let c = PrefixCache::default();
        let u1 = c.usage(&chat(3), 128, 1024);
        assert_eq!(u1.cached, 0);
        let u2 = c.usage(&chat(5), 128, 1024);
        assert!(u2.cached >= 1024 && u2.cached % 128 == 0, "{u2:?}");
        assert!(
            u2.cached <= u1.prompt && u1.prompt - u2.cached < 128,
            "{u1:?} {u2:?}"
        );
    }

    #[test]
    fn short_prompts_are_not_cached_and_other_models_do_not_share() {
        let c = PrefixCache::default();
        c.usage(&chat(1), 128, 1024);
        assert_eq!(c.usage(&chat(1), 128, 1024).cached, 0);
        c.usage(&chat(3), 128, 1024);
        let mut other = chat(3);
        other["model"] = json!("gpt-5");
        assert_eq!(c.usage(&other, 128, 1024).cached, 0);
        // DeepSeek's 64-token units, 64-token minimum.
        let c = PrefixCache::default();
        c.usage(&chat(1), 64, 64);
        assert_eq!(c.usage(&chat(2), 64, 64).cached % 64, 0);
        assert!(c.usage(&chat(2), 64, 64).cached > 0);
    }
}
