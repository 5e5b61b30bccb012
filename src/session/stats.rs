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

/// Largest value a counter may hold: stats.json and events.jsonl write signed 64-bit
/// integers, so a total stops here instead of wrapping to a negative number.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// Largest token count one call may report: 2^53 − 1, the largest integer every JSON
/// reader (JavaScript, jq) holds exactly. A server's count above it (2^64 − 1, `1e30`) is
/// clamped where it is read, so usage.jsonl, events.jsonl, stats.json and `bash-agent usage`
/// all show the same figure (docs/robustness.md).
pub const MAX_CALL_COUNT: u64 = (1 << 53) - 1;

/// A JSON number as one call's token count: a fraction rounds down, a negative or
/// non-number is 0 (`None` for a non-number), anything above [`MAX_CALL_COUNT`] is it.
pub fn call_count(v: &serde_json::Value) -> Option<u64> {
    if let Some(u) = v.as_u64() {
        return Some(u.min(MAX_CALL_COUNT));
    }
    let f = v.as_f64()?;
    Some(if f.is_nan() || f <= 0.0 {
        0
    } else if f >= MAX_CALL_COUNT as f64 {
        MAX_CALL_COUNT
    } else {
        f as u64
    })
}

/// `a + b`, stopping at [`MAX_COUNT`].
pub fn sat_add(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(MAX_COUNT)
}

impl Usage {
    pub fn context(&self) -> u64 {
        sat_add(
            sat_add(self.input, self.output),
            sat_add(self.cache_read, self.cache_creation),
        )
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
                    .unwrap_or(0)
                    .min(MAX_COUNT),
                Some(Value::String(s)) => s.trim().parse::<u64>().unwrap_or(0).min(MAX_COUNT),
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
        let c = |v: u64| v.min(MAX_COUNT) as i64;
        crate::util::jsonl::Obj::new()
            .num("current_turn_count", c(self.current_turn_count))
            .num("agent_request_count", c(self.agent_request_count))
            .num("compact_request_count", c(self.compact_request_count))
            .num("total_input_tokens", c(self.total_input_tokens))
            .num("total_output_tokens", c(self.total_output_tokens))
            .num("total_cache_read_tokens", c(self.total_cache_read_tokens))
            .num(
                "total_cache_creation_tokens",
                c(self.total_cache_creation_tokens),
            )
            .num("current_context_tokens", c(self.current_context_tokens))
            .num("sub_agent_request_count", c(self.sub_agent_request_count))
            .num(
                "last_call_speed_tok_per_sec",
                c(self.last_call_speed_tok_per_sec),
            )
            .str("last_updated", &self.last_updated)
            .finish()
    }

    /// Add one call's usage to the totals (saturating: a total never wraps).
    pub fn add_usage(&mut self, u: &Usage) {
        self.total_input_tokens = sat_add(self.total_input_tokens, u.input);
        self.total_output_tokens = sat_add(self.total_output_tokens, u.output);
        self.total_cache_read_tokens = sat_add(self.total_cache_read_tokens, u.cache_read);
        self.total_cache_creation_tokens =
            sat_add(self.total_cache_creation_tokens, u.cache_creation);
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

    #[test]
    fn totals_saturate() {
        let mut s = Stats::parse(r#"{"total_input_tokens":18446744073709551615}"#);
        assert_eq!(s.total_input_tokens, MAX_COUNT);
        s.add_usage(&Usage {
            input: u64::MAX,
            output: 1,
            ..Default::default()
        });
        assert_eq!(s.total_input_tokens, MAX_COUNT);
        assert!(s
            .to_line()
            .contains("\"total_input_tokens\":9223372036854775807,"));
    }
}
