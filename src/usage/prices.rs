//! Cost estimates: a small built-in price table (USD per million tokens), overridable in
//! `<agent_home>/config.json` and in the `prices` key of the settings files (which win):
//! `{"prices": {"model-name": {"input":3.0,"output":15.0,"cache_read":0.3,"cache_write":3.75}}}`.
//! A user entry matches the model name exactly, else the longest entry that is a prefix of
//! it; missing fields fall back to the built-in price (else 0).
use crate::session::stats::Usage;
use serde_json::Value;
use std::collections::BTreeMap;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

const fn p(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Price {
    Price {
        input,
        output,
        cache_read,
        cache_write,
    }
}

/// The built-in price of a model: its row of the model table (`assets/models.json`).
pub fn builtin(model: &str) -> Option<Price> {
    let t = crate::provider::models::lookup(model)?.price?;
    Some(p(t.input, t.output, t.cache_read, t.cache_write))
}

/// User overrides: model (or model prefix) → partial price.
#[derive(Debug, Clone, Default)]
pub struct Overrides(BTreeMap<String, BTreeMap<String, f64>>);

impl Overrides {
    /// Read `<agent_home>/config.json` (missing or unreadable → none; a broken file is
    /// reported by [`Overrides::load_checked`]).
    pub fn load() -> Overrides {
        Self::load_checked().unwrap_or_default()
    }

    /// Like [`Overrides::load`] but a malformed config.json is an error message. The
    /// settings files' `prices` (for the current directory) override config.json's entry
    /// by entry; a malformed settings file is reported where settings are loaded.
    pub fn load_checked() -> Result<Overrides, String> {
        let path = crate::session::paths::agent_home().join("config.json");
        let mut ov = match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?,
            Err(_) => Overrides::default(),
        };
        if let Ok(s) = crate::settings::load_here() {
            if let Some(p) = s.prices() {
                ov.add(p);
            }
        }
        Ok(ov)
    }

    /// Add (or replace) the entries of a `prices` object.
    fn add(&mut self, prices: &Value) {
        for (model, fields) in prices.as_object().into_iter().flatten() {
            let mut f = BTreeMap::new();
            for (k, x) in fields.as_object().into_iter().flatten() {
                if let Some(n) = x.as_f64() {
                    f.insert(k.clone(), n);
                }
            }
            self.0.insert(model.clone(), f);
        }
    }

    pub fn parse(text: &str) -> Result<Overrides, String> {
        if text.trim().is_empty() {
            return Ok(Overrides::default());
        }
        let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut out = Overrides::default();
        if let Some(prices) = v.get("prices") {
            out.add(prices);
        }
        Ok(out)
    }

    /// The price of `model`: a user entry (exact, else longest prefix) over the built-in.
    pub fn price(&self, model: &str) -> Option<Price> {
        let base = builtin(model);
        let user = self.0.get(model).or_else(|| {
            self.0
                .iter()
                .filter(|(k, _)| !k.is_empty() && model.starts_with(k.as_str()))
                .max_by_key(|(k, _)| k.len())
                .map(|(_, v)| v)
        });
        let Some(u) = user else {
            return base;
        };
        let b = base.unwrap_or(p(0.0, 0.0, 0.0, 0.0));
        let g = |k: &str, d: f64| u.get(k).copied().unwrap_or(d);
        Some(Price {
            input: g("input", b.input),
            output: g("output", b.output),
            cache_read: g("cache_read", b.cache_read),
            cache_write: g("cache_write", b.cache_write),
        })
    }
}

/// USD for `u` at `pr`. Input is counted as the providers report it (Anthropic: without
/// the cached tokens, which are priced separately).
pub fn cost(pr: &Price, u: &Usage) -> f64 {
    (u.input as f64 * pr.input
        + u.output as f64 * pr.output
        + u.cache_read as f64 * pr.cache_read
        + u.cache_creation as f64 * pr.cache_write)
        / 1_000_000.0
}

/// LOOP (/status): the estimated cost of `u` for `model`, `None` when the price is unknown.
pub fn estimate_cost(model: &str, u: &Usage) -> Option<f64> {
    Overrides::load().price(model).map(|pr| cost(&pr, u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_families() {
        assert_eq!(
            builtin("claude-sonnet-4-5-20250929").map(|p| p.output),
            Some(15.0)
        );
        assert_eq!(builtin("claude-opus-4-1").map(|p| p.input), Some(15.0));
        assert_eq!(builtin("claude-opus-4-5").map(|p| p.input), Some(5.0));
        assert_eq!(builtin("gpt-4o-mini-2024").map(|p| p.input), Some(0.15));
        assert_eq!(builtin("gpt-4o").map(|p| p.input), Some(2.5));
        assert_eq!(builtin("deepseek-chat").map(|p| p.output), Some(0.42));
        assert_eq!(builtin("mock-model"), None);
    }

    #[test]
    fn overrides_and_cost() {
        let o = Overrides::parse(
            r#"{"prices":{"mock":{"input":1,"output":2},"claude-sonnet-4-5":{"input":10}}}"#,
        )
        .unwrap();
        let m = o.price("mock-model").unwrap();
        assert_eq!((m.input, m.output, m.cache_read), (1.0, 2.0, 0.0));
        let s = o.price("claude-sonnet-4-5").unwrap();
        assert_eq!((s.input, s.output), (10.0, 15.0));
        let u = Usage {
            input: 1_000_000,
            output: 500_000,
            cache_read: 0,
            cache_creation: 0,
        };
        assert!((cost(&m, &u) - 2.0).abs() < 1e-9);
        assert!(Overrides::parse("{bad").is_err());
        assert!(o.price("unknown").is_none());
    }
}
