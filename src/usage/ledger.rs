//! The usage ledger (docs/features.md): one compact JSON line per model call in
//! `<session>/usage.jsonl`, fixed key order, whole-line appends. `bash-agent usage`
//! (see `usage.rs`) sums it up; prices live in `prices.rs`.
use crate::session::Session;
use crate::util::jsonl::Obj;
use serde_json::Value;

/// One model call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LedgerEntry {
    /// RFC 3339 UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub time: String,
    pub provider: String,
    pub model: String,
    /// `agent`, `compact` or `sub_agent` (a call made by a sub-agent, recorded in its own
    /// `sub_*` session).
    pub kind: String,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
    pub elapsed_ms: u64,
    pub first_token_ms: u64,
    pub tok_per_sec: u64,
    pub retries: u64,
    /// The server streamed no usage: the token figures were estimated from the bytes sent
    /// and received. Written as `"estimated":true` only then (older lines stay as they were).
    pub estimated: bool,
}

impl LedgerEntry {
    /// The line (without newline), keys in this fixed order.
    pub fn to_line(&self) -> String {
        // Never a negative number for a count past i64 (counts are clamped when read).
        let c = |n: u64| n.min(crate::session::stats::MAX_COUNT) as i64;
        let o = Obj::new()
            .str("time", &self.time)
            .str("provider", &self.provider)
            .str("model", &self.model)
            .str("kind", &self.kind)
            .num("input_tokens", c(self.input))
            .num("output_tokens", c(self.output))
            .num("cache_read_input_tokens", c(self.cache_read))
            .num("cache_creation_input_tokens", c(self.cache_creation))
            .num("elapsed_ms", c(self.elapsed_ms))
            .num("first_token_ms", c(self.first_token_ms))
            .num("tok_per_sec", c(self.tok_per_sec))
            .num("retries", c(self.retries));
        let o = if self.estimated {
            o.bool("estimated", true)
        } else {
            o
        };
        o.finish()
    }

    /// Parse a ledger line; `None` for anything that is not one.
    pub fn parse(line: &str) -> Option<LedgerEntry> {
        let v: Value = serde_json::from_str(line.trim()).ok()?;
        let o = v.as_object()?;
        let s = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let n = |k: &str| -> Option<u64> {
            match o.get(k) {
                None | Some(Value::Null) => Some(0),
                Some(x) => crate::session::stats::call_count(x),
            }
        };
        let time = s("time");
        if time.is_empty() && o.get("model").is_none() {
            return None;
        }
        Some(LedgerEntry {
            time,
            provider: s("provider"),
            model: s("model"),
            kind: s("kind"),
            input: n("input_tokens")?,
            output: n("output_tokens")?,
            cache_read: n("cache_read_input_tokens")?,
            cache_creation: n("cache_creation_input_tokens")?,
            elapsed_ms: n("elapsed_ms")?,
            first_token_ms: n("first_token_ms")?,
            tok_per_sec: n("tok_per_sec")?,
            retries: n("retries")?,
            estimated: o.get("estimated").and_then(Value::as_bool).unwrap_or(false),
        })
    }

    pub fn usage(&self) -> crate::session::stats::Usage {
        crate::session::stats::Usage {
            input: self.input,
            output: self.output,
            cache_read: self.cache_read,
            cache_creation: self.cache_creation,
        }
    }
}

/// LOOP: append one line to the session's usage.jsonl. Errors are ignored (the ledger must
/// never fail a turn); see [`try_record`].
pub fn record(session: &Session, e: &LedgerEntry) {
    let _ = try_record(session, e);
}

/// [`record`] returning the I/O error.
pub fn try_record(session: &Session, e: &LedgerEntry) -> std::io::Result<()> {
    crate::util::fsx::append_line(&session.usage_ledger(), &e.to_line())
}

/// Read a ledger: the entries and the number of corrupt lines skipped. A last line without
/// its newline that does not parse is a write still going on or cut by a kill (the next
/// run of the session sets it aside, `session/torn.rs`): skipped, not counted as corrupt.
pub fn read(path: &std::path::Path) -> (Vec<LedgerEntry>, usize) {
    let text = crate::util::fsx::read_lossy(path);
    let mut out = Vec::new();
    let mut bad = 0;
    let whole = text.ends_with('\n');
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
    while let Some(line) = lines.next() {
        match LedgerEntry::parse(line) {
            Some(e) => out.push(e),
            None if lines.peek().is_none() && !whole => {}
            None => bad += 1,
        }
    }
    (out, bad)
}

/// Parse `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `±HH:MM` (or a plain epoch number).
pub fn parse_time(s: &str) -> Option<i64> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().ok();
    }
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(r) = rest.strip_prefix('.') {
        rest = r.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let off = match rest {
        "" | "Z" | "z" => 0,
        r if r.len() == 6 && (r.starts_with('+') || r.starts_with('-')) => {
            let hh: i64 = r.get(1..3)?.parse().ok()?;
            let mm: i64 = r.get(4..6)?.parse().ok()?;
            let v = hh * 3600 + mm * 60;
            if r.starts_with('-') {
                -v
            } else {
                v
            }
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = if y2 >= 0 { y2 } else { y2 - 399 } / 400;
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86400 + h * 3600 + mi * 60 + se - off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_round_trip_and_order() {
        let e = LedgerEntry {
            time: "2026-12-01T04:07:38Z".into(),
            provider: "claude".into(),
            model: "claude-sonnet-4-5".into(),
            kind: "agent".into(),
            input: 100,
            output: 20,
            cache_read: 3,
            cache_creation: 4,
            elapsed_ms: 1500,
            first_token_ms: 300,
            tok_per_sec: 13,
            retries: 1,
            estimated: false,
        };
        let l = e.to_line();
        assert!(!l.contains("estimated"), "{l}");
        let est = LedgerEntry {
            estimated: true,
            ..e.clone()
        };
        let le = est.to_line();
        assert_eq!(le, format!("{},\"estimated\":true}}", &l[..l.len() - 1]));
        assert_eq!(LedgerEntry::parse(&le), Some(est));
        assert!(l.starts_with(r#"{"time":"2026-12-01T04:07:38Z","provider":"claude","model":"claude-sonnet-4-5","kind":"agent","input_tokens":100,"#));
        assert!(l.ends_with(r#""tok_per_sec":13,"retries":1}"#));
        assert_eq!(LedgerEntry::parse(&l), Some(e));
        assert_eq!(LedgerEntry::parse("{\"time\":"), None);
        assert_eq!(LedgerEntry::parse("[1,2]"), None);
        assert_eq!(
            LedgerEntry::parse(r#"{"model":"x","input_tokens":"lots"}"#),
            None
        );
    }

    #[test]
    fn a_torn_last_line_is_skipped_not_counted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("usage.jsonl");
        let line = r#"{"time":"2026-12-01T04:07:38Z","provider":"claude","model":"m","kind":"agent","input_tokens":1,"output_tokens":2}"#;
        std::fs::write(&p, format!("{line}\n{}", &line[..40])).unwrap();
        let (v, bad) = read(&p);
        assert_eq!((v.len(), bad), (1, 0));
        // Torn in the middle (a newline glued after it): corrupt.
        std::fs::write(&p, format!("{}\n{line}\n", &line[..40])).unwrap();
        assert_eq!(read(&p).1, 1);
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_time("2026-05-28T20:26:40Z"), Some(1_780_000_000));
        assert_eq!(parse_time("2026-05-28T22:26:40+02:00"), Some(1_780_000_000));
        assert_eq!(parse_time("2026-05-28T20:26:40.123Z"), Some(1_780_000_000));
        assert_eq!(parse_time("1780000000"), Some(1_780_000_000));
        assert_eq!(parse_time("yesterday"), None);
        let now = crate::util::time::now_secs();
        assert_eq!(parse_time(&crate::util::time::utc_iso(now)), Some(now));
    }
}
