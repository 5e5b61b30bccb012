//! `bash-agent usage [--session NAME | --all] [--since 7d] [--json]`: totals per session
//! and per model from the usage ledgers, with a cost estimate (see `prices.rs`). Sessions
//! without a usage.jsonl (written by the shell reference) fall back to their events.jsonl
//! `usage` events (model `unknown`, no per-call time: `--since` then uses the session's
//! last activity; `sub_agent` roll-up events are skipped since the sub-agent's own session
//! holds its calls).
use super::ledger::{self, LedgerEntry};
use super::prices::{cost, Overrides};
use crate::session::stats::{sat_add, Usage};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Sums over a set of calls.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub calls: u64,
    pub usage: Usage,
    pub elapsed_ms: u64,
    pub cost: f64,
    pub priced_calls: u64,
    /// Calls whose token figures were estimated (the server streamed no usage).
    pub estimated_calls: u64,
}

impl Totals {
    pub fn add(&mut self, e: &LedgerEntry, ov: &Overrides) {
        self.calls += 1;
        self.usage.input = sat_add(self.usage.input, e.input);
        self.usage.output = sat_add(self.usage.output, e.output);
        self.usage.cache_read = sat_add(self.usage.cache_read, e.cache_read);
        self.usage.cache_creation = sat_add(self.usage.cache_creation, e.cache_creation);
        self.elapsed_ms += e.elapsed_ms;
        self.estimated_calls += u64::from(e.estimated);
        if let Some(pr) = ov.price(&e.model) {
            self.cost += cost(&pr, &e.usage());
            self.priced_calls += 1;
        }
    }

    pub fn merge(&mut self, o: &Totals) {
        self.calls += o.calls;
        self.usage.input = sat_add(self.usage.input, o.usage.input);
        self.usage.output = sat_add(self.usage.output, o.usage.output);
        self.usage.cache_read = sat_add(self.usage.cache_read, o.usage.cache_read);
        self.usage.cache_creation = sat_add(self.usage.cache_creation, o.usage.cache_creation);
        self.elapsed_ms += o.elapsed_ms;
        self.cost += o.cost;
        self.priced_calls += o.priced_calls;
        self.estimated_calls += o.estimated_calls;
    }

    fn cost_json(&self) -> Value {
        if self.priced_calls == 0 {
            Value::Null
        } else {
            json!((self.cost * 1e6).round() / 1e6)
        }
    }

    pub fn json(&self, mut head: serde_json::Map<String, Value>) -> Value {
        head.insert("calls".into(), json!(self.calls));
        head.insert("input_tokens".into(), json!(self.usage.input));
        head.insert("output_tokens".into(), json!(self.usage.output));
        head.insert(
            "cache_read_input_tokens".into(),
            json!(self.usage.cache_read),
        );
        head.insert(
            "cache_creation_input_tokens".into(),
            json!(self.usage.cache_creation),
        );
        head.insert("elapsed_ms".into(), json!(self.elapsed_ms));
        head.insert("cost_usd".into(), self.cost_json());
        head.insert(
            "unpriced_calls".into(),
            json!(self.calls - self.priced_calls),
        );
        // Only when there are some: the output of sessions with real figures is unchanged.
        if self.estimated_calls > 0 {
            head.insert("estimated_calls".into(), json!(self.estimated_calls));
        }
        Value::Object(head)
    }

    fn cost_text(&self) -> String {
        if self.priced_calls == 0 {
            "-".into()
        } else if self.priced_calls < self.calls {
            format!("${:.4}*", self.cost)
        } else {
            format!("${:.4}", self.cost)
        }
    }
}

/// One session's usage.
#[derive(Debug, Clone)]
pub struct SessionUsage {
    pub project: String,
    pub session: String,
    /// `ledger` or `events`.
    pub source: &'static str,
    pub totals: Totals,
}

/// The entries of one session (ledger, else events fallback), filtered by `cutoff`.
/// Returns the entries, the source and the number of corrupt lines skipped.
pub fn session_entries(dir: &Path, cutoff: Option<i64>) -> (Vec<LedgerEntry>, &'static str, usize) {
    let ledger_path = dir.join("usage.jsonl");
    if ledger_path.is_file() {
        let (mut v, bad) = ledger::read(&ledger_path);
        if let Some(c) = cutoff {
            v.retain(|e| ledger::parse_time(&e.time).is_some_and(|t| t >= c));
        }
        return (v, "ledger", bad);
    }
    if cutoff.is_some_and(|c| crate::session::store::last_activity(dir) < c) {
        return (Vec::new(), "events", 0);
    }
    let (events, bad) = crate::session::events::read_all(&dir.join("events.jsonl"));
    let n = |v: &Value, k: &str| {
        v.get(k)
            .and_then(crate::session::stats::call_count)
            .unwrap_or(0)
    };
    let v = events
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("usage"))
        .filter(|e| e.get("kind").and_then(Value::as_str) != Some("sub_agent"))
        .map(|e| LedgerEntry {
            model: "unknown".into(),
            kind: e
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("agent")
                .into(),
            input: n(e, "input_tokens"),
            output: n(e, "output_tokens"),
            cache_read: n(e, "cache_read_input_tokens"),
            cache_creation: n(e, "cache_creation_input_tokens"),
            ..Default::default()
        })
        .collect();
    (v, "events", bad.len())
}

/// The sub-agent sessions a session started (its `sub_agent_start` events).
pub fn sub_sessions(dir: &Path) -> Vec<String> {
    let (events, _) = crate::session::events::read_all(&dir.join("events.jsonl"));
    let mut v: Vec<String> = events
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("sub_agent_start"))
        .filter_map(|e| {
            e.get("session_id")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .filter(|id| crate::session::paths::validate_session_name(id).is_ok())
        .collect();
    v.dedup();
    v
}

pub fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One table row; token figures that include estimates carry a `~` (see the footnote).
pub fn row(w: usize, name: &str, t: &Totals) -> String {
    let est = t.estimated_calls > 0;
    let n = |v: u64| {
        if est {
            format!("~{}", fmt_n(v))
        } else {
            fmt_n(v)
        }
    };
    format!(
        "{:<w$} {:>6} {:>12} {:>10} {:>12} {:>12} {:>9} {:>10}\n",
        name,
        t.calls,
        n(t.usage.input),
        n(t.usage.output),
        n(t.usage.cache_read),
        n(t.usage.cache_creation),
        format!("{:.1}s", t.elapsed_ms as f64 / 1000.0),
        t.cost_text()
    )
}

/// Thousands separators.
pub fn fmt_n(v: u64) -> String {
    crate::ui::title::thousands(v)
}

pub fn render_table(
    sessions: &[SessionUsage],
    models: &BTreeMap<String, Totals>,
    total: &Totals,
) -> String {
    let mut names: Vec<String> = sessions
        .iter()
        .map(|u| {
            let mut name = format!("{}/{}", u.project, u.session);
            if u.source == "events" {
                name.push_str(" (events)");
            }
            name
        })
        .collect();
    let w = names
        .iter()
        .chain(models.keys())
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    let head = |first: &str| {
        format!(
            "{:<w$} {:>6} {:>12} {:>10} {:>12} {:>12} {:>9} {:>10}\n",
            first, "CALLS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TIME", "COST"
        )
    };
    let mut s = head("SESSION");
    for (u, name) in sessions.iter().zip(names.drain(..)) {
        s.push_str(&row(w, &name, &u.totals));
    }
    s.push('\n');
    s.push_str(&head("MODEL"));
    for (m, t) in models {
        s.push_str(&row(w, m, t));
    }
    s.push('\n');
    s.push_str(&row(w, "TOTAL", total));
    if total.estimated_calls > 0 {
        s.push_str(&format!(
            "\n~ includes estimated figures: for {} call(s) the server streamed no usage, so tokens were estimated from the bytes sent and received (about 4 bytes per token)\n",
            total.estimated_calls
        ));
    }
    if total.priced_calls < total.calls {
        s.push_str("\n* cost covers only models with a known price (set others under \"prices\" in ~/.bash-agent/config.json)\n");
    }
    s
}
