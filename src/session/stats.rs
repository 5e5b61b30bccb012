//! stats.json (docs/sessions.md): one line, fixed key order, atomic replacement.
//! Empty or missing files read as zeros; readers never depend on key order.
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;

/// Token usage of one model call (or a sub-agent's cumulative totals).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
}

impl Usage {
    pub fn context(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_creation
    }
}

/// The counters, in the file's key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub current_turn_count: u64,
    pub agent_request_count: u64,
    pub compact_request_count: u64,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub total_cache_read_tokens: u64,
    pub total_cache_creation_tokens: u64,
    pub current_context_tokens: u64,
    pub sub_agent_request_count: u64,
    pub last_call_speed_tok_per_sec: u64,
    pub last_updated: String,
}

impl Stats {
    /// Parse the first line of a stats file; anything unreadable counts as zero.
    pub fn parse(text: &str) -> Stats {
        let first = text.lines().next().unwrap_or("");
        let v: Value = serde_json::from_str(first).unwrap_or(Value::Null);
        let n = |k: &str| -> u64 {
            match v.get(k) {
                Some(Value::Number(x)) => x
                    .as_u64()
                    .or_else(|| x.as_f64().map(|f| f.max(0.0) as u64))
                    .unwrap_or(0),
                Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
                _ => 0,
            }
        };
        Stats {
            current_turn_count: n("current_turn_count"),
            agent_request_count: n("agent_request_count"),
            compact_request_count: n("compact_request_count"),
            total_input_tokens: n("total_input_tokens"),
            total_output_tokens: n("total_output_tokens"),
            total_cache_read_tokens: n("total_cache_read_tokens"),
            total_cache_creation_tokens: n("total_cache_creation_tokens"),
            current_context_tokens: n("current_context_tokens"),
            sub_agent_request_count: n("sub_agent_request_count"),
            last_call_speed_tok_per_sec: n("last_call_speed_tok_per_sec"),
            last_updated: v
                .get("last_updated")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        }
    }

    pub fn load(path: &Path) -> Stats {
        Stats::parse(&crate::util::fsx::read_lossy(path))
    }

    /// The single line, in the reference order with `last_call_speed_tok_per_sec` after
    /// `sub_agent_request_count`.
    pub fn to_line(&self) -> String {
        crate::util::jsonl::Obj::new()
            .num("current_turn_count", self.current_turn_count as i64)
            .num("agent_request_count", self.agent_request_count as i64)
            .num("compact_request_count", self.compact_request_count as i64)
            .num("total_input_tokens", self.total_input_tokens as i64)
            .num("total_output_tokens", self.total_output_tokens as i64)
            .num(
                "total_cache_read_tokens",
                self.total_cache_read_tokens as i64,
            )
            .num(
                "total_cache_creation_tokens",
                self.total_cache_creation_tokens as i64,
            )
            .num("current_context_tokens", self.current_context_tokens as i64)
            .num(
                "sub_agent_request_count",
                self.sub_agent_request_count as i64,
            )
            .num(
                "last_call_speed_tok_per_sec",
                self.last_call_speed_tok_per_sec as i64,
            )
            .str("last_updated", &self.last_updated)
            .finish()
    }

    /// Add one call's usage to the totals.
    pub fn add_usage(&mut self, u: &Usage) {
        self.total_input_tokens += u.input;
        self.total_output_tokens += u.output;
        self.total_cache_read_tokens += u.cache_read;
        self.total_cache_creation_tokens += u.cache_creation;
    }

    pub fn totals(&self) -> Usage {
        Usage {
            input: self.total_input_tokens,
            output: self.total_output_tokens,
            cache_read: self.total_cache_read_tokens,
            cache_creation: self.total_cache_creation_tokens,
        }
    }
}

static STATS_LOCK: Mutex<()> = Mutex::new(());

/// Read-modify-write under a process-wide lock, replaced atomically (temp + rename).
/// Returns the new stats.
pub fn update(path: &Path, f: impl FnOnce(&mut Stats)) -> std::io::Result<Stats> {
    let _g = STATS_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let mut s = Stats::load(path);
    f(&mut s);
    s.last_updated = crate::util::time::utc_iso_now();
    let mut line = s.to_line();
    line.push('\n');
    crate::util::fsx::write_atomic_nosync(path, line.as_bytes())?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reference_line_and_empty() {
        let line = r#"{"current_turn_count":2,"agent_request_count":7,"compact_request_count":0,"total_input_tokens":1800,"total_output_tokens":160,"total_cache_read_tokens":800,"total_cache_creation_tokens":100,"current_context_tokens":120,"sub_agent_request_count":0,"last_updated":"2026-12-01T04:14:22Z"}"#;
        let s = Stats::parse(line);
        assert_eq!(s.agent_request_count, 7);
        assert_eq!(s.total_cache_read_tokens, 800);
        assert_eq!(s.last_updated, "2026-12-01T04:14:22Z");
        assert_eq!(Stats::parse(""), Stats::default());
        assert_eq!(Stats::parse("{garbage").current_turn_count, 0);
    }

    #[test]
    fn key_order() {
        let s = Stats {
            current_turn_count: 1,
            last_updated: "T".into(),
            ..Default::default()
        };
        assert_eq!(
            s.to_line(),
            r#"{"current_turn_count":1,"agent_request_count":0,"compact_request_count":0,"total_input_tokens":0,"total_output_tokens":0,"total_cache_read_tokens":0,"total_cache_creation_tokens":0,"current_context_tokens":0,"sub_agent_request_count":0,"last_call_speed_tok_per_sec":0,"last_updated":"T"}"#
        );
    }

    #[test]
    fn update_is_atomic_rmw() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("stats.json");
        std::fs::write(&p, "").unwrap();
        update(&p, |s| s.current_turn_count += 1).unwrap();
        let s = update(&p, |s| {
            s.add_usage(&Usage {
                input: 3,
                output: 4,
                cache_read: 5,
                cache_creation: 6,
            })
        })
        .unwrap();
        assert_eq!(s.current_turn_count, 1);
        assert_eq!(Stats::load(&p).total_cache_creation_tokens, 6);
        assert!(std::fs::read_to_string(&p).unwrap().ends_with("Z\"}\n"));
    }
}
