//! The model table: which reasoning fields each hosted model accepts, its output and
//! context limits, its prompt-cache minimum and its prices, and the aliases and defaults.
//!
//! These are facts that change with the vendors' model lineups, so they are data
//! (`assets/models.json`, embedded at build time) read here and nowhere else. Everything
//! else asks this module: the request builders (which thinking/effort fields to send), the
//! configuration (default model, aliases, `--max-tokens` default), compaction (context
//! window) and the usage ledger (prices). docs/providers.md#the-model-table.
use crate::options::{Effort, Thinking};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The embedded table (checked by the unit tests below, so a broken edit fails the suite).
const MODELS_JSON: &str = include_str!("../../assets/models.json");

/// Which vendor's API a model belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    Anthropic,
    OpenAi,
    DeepSeek,
}

/// Lifecycle of a model as its vendor states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Current,
    #[default]
    Legacy,
    Deprecated,
    Retired,
}

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct TablePrice {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

/// One row of the table.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelInfo {
    /// The id, or the prefix of the ids (dated snapshots) the row covers.
    #[serde(default)]
    pub id: String,
    #[serde(default = "default_vendor")]
    pub vendor: Vendor,
    #[serde(default)]
    pub family: String,
    #[serde(default)]
    pub status: Status,
    #[serde(default)]
    pub retired_on: Option<String>,
    /// Anthropic thinking types accepted; the first is what default flags send.
    #[serde(default)]
    pub thinking: Vec<String>,
    /// Effort values accepted (Anthropic `output_config.effort`, OpenAI reasoning effort).
    #[serde(default)]
    pub effort: Vec<String>,
    /// An OpenAI-style reasoning model: `max_completion_tokens`, no sampling parameters.
    #[serde(default)]
    pub reasoning: bool,
    pub max_output: u64,
    pub context_window: u64,
    #[serde(default)]
    pub cache_min_tokens: u64,
    #[serde(default)]
    pub price: Option<TablePrice>,
}

fn default_vendor() -> Vendor {
    Vendor::Anthropic
}

#[derive(Debug, Deserialize)]
struct Table {
    defaults: BTreeMap<String, String>,
    aliases: BTreeMap<String, String>,
    unknown: BTreeMap<String, ModelInfo>,
    models: Vec<ModelInfo>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        // The file is embedded and tested; an empty table (conservative fields everywhere)
        // is the answer if it were ever broken, never a panic.
        serde_json::from_str(MODELS_JSON).unwrap_or(Table {
            defaults: BTreeMap::new(),
            aliases: BTreeMap::new(),
            unknown: BTreeMap::new(),
            models: Vec::new(),
        })
    })
}

/// The model name as the table matches it: lower-cased, without a `vendor/` routing prefix
/// (OpenRouter, LiteLLM) or a `[1m]` context suffix.
fn key(model: &str) -> String {
    let m = model.rsplit('/').next().unwrap_or(model);
    let m = m.split('[').next().unwrap_or(m);
    m.trim().to_ascii_lowercase()
}

/// The row for `model`: the longest id that is a prefix of its name. `None` for a model
/// the table does not know (a local model, a new release): callers use [`unknown`].
pub fn lookup(model: &str) -> Option<&'static ModelInfo> {
    let k = key(model);
    table()
        .models
        .iter()
        .filter(|m| !m.id.is_empty() && k.starts_with(m.id.as_str()))
        .max_by_key(|m| m.id.len())
}

/// Conservative limits and no reasoning fields for a model of `vendor` the table does not
/// know.
pub fn unknown(vendor: Vendor) -> &'static ModelInfo {
    static FALLBACK: OnceLock<ModelInfo> = OnceLock::new();
    let name = match vendor {
        Vendor::Anthropic => "anthropic",
        Vendor::OpenAi => "openai",
        Vendor::DeepSeek => "deepseek",
    };
    table().unknown.get(name).unwrap_or_else(|| {
        FALLBACK.get_or_init(|| ModelInfo {
            id: String::new(),
            vendor,
            family: String::new(),
            status: Status::Legacy,
            retired_on: None,
            thinking: Vec::new(),
            effort: Vec::new(),
            reasoning: false,
            max_output: 8192,
            context_window: 128_000,
            cache_min_tokens: 1024,
            price: None,
        })
    })
}

/// [`lookup`], else the conservative row of `vendor`.
pub fn info(model: &str, vendor: Vendor) -> &'static ModelInfo {
    lookup(model).unwrap_or_else(|| unknown(vendor))
}

/// The model an alias (`sonnet`, `opus`, `haiku`, …) stands for; any other name as it is.
pub fn resolve_alias(name: &str) -> String {
    let k = name.trim().to_ascii_lowercase();
    table()
        .aliases
        .get(&k)
        .cloned()
        .unwrap_or_else(|| name.to_string())
}

/// The aliases, for help texts and pickers.
pub fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    table()
        .aliases
        .iter()
        .map(|(a, m)| (a.as_str(), m.as_str()))
}

/// The default model for a provider name (`claude`, `openai`, `responses`, `deepseek`).
pub fn default_model(provider: &str) -> &'static str {
    table()
        .defaults
        .get(provider)
        .map(|s| s.as_str())
        .unwrap_or(match provider {
            "openai" | "responses" => "gpt-5.5",
            "deepseek" => "deepseek-v4-flash",
            _ => "claude-sonnet-5-5",
        })
}

/// The current models of a family (for "model unknown or retired" messages), newest first.
pub fn current_of_family(family: &str) -> Vec<&'static str> {
    table()
        .models
        .iter()
        .filter(|m| m.family == family && m.status == Status::Current)
        .map(|m| m.id.as_str())
        .collect()
}

/// Every current model of a vendor (for pickers and messages).
pub fn current_models(vendor: Vendor) -> Vec<&'static str> {
    table()
        .models
        .iter()
        .filter(|m| m.vendor == vendor && m.status == Status::Current)
        .map(|m| m.id.as_str())
        .collect()
}

impl ModelInfo {
    /// Whether the model accepts this Anthropic thinking type.
    pub fn accepts_thinking(&self, t: Thinking) -> bool {
        self.thinking.iter().any(|x| x == t.as_str())
    }

    /// What default flags send: the first accepted type, `None` for no thinking field.
    pub fn default_thinking(&self) -> Option<Thinking> {
        self.thinking.first().and_then(|t| match t.as_str() {
            "adaptive" => Some(Thinking::Adaptive),
            "enabled" => Some(Thinking::Enabled),
            _ => None,
        })
    }

    /// The thinking type to send when the user asked for `asked`: the request itself if the
    /// model accepts it, else the nearest one it does accept (`adaptive` ↔ `enabled`), else
    /// none (a model that cannot turn thinking off gets no field, which means its default).
    pub fn thinking_for(&self, asked: Thinking) -> Option<Thinking> {
        if self.accepts_thinking(asked) {
            return (asked != Thinking::Disabled).then_some(asked);
        }
        match asked {
            Thinking::Disabled => None,
            Thinking::Adaptive | Thinking::Enabled => self.default_thinking(),
        }
    }

    /// Whether the model takes an effort field at all.
    pub fn takes_effort(&self) -> bool {
        !self.effort.is_empty()
    }

    /// The effort value to send for `asked`: itself if accepted, else the nearest accepted
    /// value below it (then above it); `None` when the model takes no effort field.
    pub fn effort_for(&self, asked: Effort) -> Option<&str> {
        const ORDER: [&str; 7] = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];
        let want = ORDER.iter().position(|x| *x == asked.as_str())?;
        let accepted = |i: usize| self.effort.iter().any(|e| e == ORDER[i]);
        (0..=want)
            .rev()
            .chain(want + 1..ORDER.len())
            .find(|&i| accepted(i))
            .map(|i| ORDER[i])
    }

    pub fn is_retired(&self) -> bool {
        self.status == Status::Retired
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_parses_and_every_row_is_sane() {
        let t: Table = serde_json::from_str(MODELS_JSON).unwrap();
        assert!(!t.models.is_empty());
        for m in &t.models {
            assert!(!m.id.is_empty());
            assert!(
                m.max_output > 0 && m.context_window > m.max_output,
                "{}",
                m.id
            );
            for th in &m.thinking {
                assert!(["adaptive", "enabled", "disabled"].contains(&th.as_str()));
            }
        }
        for (alias, target) in &t.aliases {
            assert!(
                lookup(target).is_some(),
                "alias {alias} -> {target} unknown"
            );
        }
        for (p, d) in &t.defaults {
            let m = lookup(d).unwrap_or_else(|| panic!("default of {p} unknown"));
            assert_eq!(m.status, Status::Current, "default of {p} is not current");
        }
    }

    #[test]
    fn longest_prefix_wins_and_routing_prefixes_are_ignored() {
        assert_eq!(
            lookup("claude-opus-4-5-20251101").unwrap().id,
            "claude-opus-4-5"
        );
        assert_eq!(
            lookup("anthropic/claude-sonnet-4-6").unwrap().id,
            "claude-sonnet-4-6"
        );
        assert_eq!(lookup("gpt-5-mini-2025-08-07").unwrap().id, "gpt-5-mini");
        assert_eq!(lookup("gpt-4o-mini").unwrap().id, "gpt-4o-mini");
        assert!(lookup("llama-3-8b").is_none());
        assert!(lookup("claude-sonnet-4-20250514").unwrap().is_retired());
    }

    #[test]
    fn reasoning_fields_follow_the_model() {
        let opus55 = lookup("claude-opus-5-5").unwrap();
        assert_eq!(opus55.thinking_for(Thinking::Disabled), None);
        assert_eq!(
            opus55.thinking_for(Thinking::Enabled),
            Some(Thinking::Adaptive)
        );
        let opus47 = lookup("claude-opus-4-7").unwrap();
        assert_eq!(
            opus47.thinking_for(Thinking::Enabled),
            Some(Thinking::Adaptive)
        );
        let haiku45 = lookup("claude-haiku-4-5").unwrap();
        assert_eq!(haiku45.default_thinking(), Some(Thinking::Enabled));
        assert_eq!(haiku45.effort_for(Effort::High), None);
        let s46 = lookup("claude-sonnet-4-6").unwrap();
        assert_eq!(s46.effort_for(Effort::Xhigh), Some("high"));
        let o3 = lookup("o3").unwrap();
        assert!(o3.reasoning);
        assert_eq!(o3.effort_for(Effort::Max), Some("high"));
        assert_eq!(resolve_alias("Sonnet"), "claude-sonnet-5-5");
        assert_eq!(resolve_alias("my-model"), "my-model");
    }
}
