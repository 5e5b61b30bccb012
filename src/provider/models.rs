//! The model table: which reasoning fields each hosted model accepts, its output and
//! context limits, its prompt-cache minimum and its prices, and the aliases and defaults.
//!
//! These are facts that change with the vendors' model lineups, so they are data
//! (`assets/models.json`), read here and nowhere else: `build.rs` turns the file into the
//! code that builds the table (a JSON parse at every start cost a sixth of a one-shot run),
//! and the tests below check that code against a serde parse of the file. Everything
//! else asks this module: the request builders (which thinking/effort fields to send), the
//! configuration (default model, aliases, `--max-tokens` default), compaction (context
//! window) and the usage ledger (prices). docs/providers.md#the-model-table.
mod alias;

use crate::options::{Effort, Thinking};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The table as JSON, for the tests that check the generated code against it.
#[cfg(test)]
const MODELS_JSON: &str = include_str!("../../assets/models.json");

// `fn generated_table() -> Table`, written by build.rs from assets/models.json.
include!(concat!(env!("OUT_DIR"), "/models_table.rs"));

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
    T.get_or_init(generated_table)
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
/// An alias follows its line's newest current model ([`alias`]).
pub fn resolve_alias(name: &str) -> String {
    let k = name.trim().to_ascii_lowercase();
    table()
        .aliases
        .get(&k)
        .and_then(|entry| alias::resolve(entry))
        .map_or_else(|| name.to_string(), str::to_string)
}

/// The `--max-tokens` an agent turn asks for when the user gave none: long enough for a
/// large file write, short enough that a runaway answer stops within a few minutes.
pub const AGENT_MAX_TOKENS: u64 = 32_000;

/// The `max_tokens` to send: the user's value clamped to the model's max output (a larger
/// one is refused), else `min(max output, AGENT_MAX_TOKENS)`. A model the table does not
/// know keeps the user's value, or 16384.
pub fn max_tokens_for(model: &str, asked: Option<u64>) -> u64 {
    match (lookup(model), asked) {
        (Some(m), Some(n)) => n.min(m.max_output),
        (Some(m), None) => m.max_output.min(AGENT_MAX_TOKENS),
        (None, Some(n)) => n,
        (None, None) => 16_384,
    }
}

/// The `--max-context` default (compaction keeps the conversation under 90 % of it): the
/// model's context window, 200 000 for a model the table does not know.
pub fn max_context_for(model: &str) -> u64 {
    lookup(model).map_or(200_000, |m| m.context_window)
}

/// The aliases and the models they stand for now, for help texts and pickers.
pub fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    table()
        .aliases
        .iter()
        .filter_map(|(a, entry)| Some((a.as_str(), alias::resolve(entry)?)))
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

/// For a 404 naming a model (Anthropic: `model: X`; OpenAI: ``The model `X` does not
/// exist``): what the table knows of it — retired on which date, or unknown — and the
/// current models of its family (or of its vendor when the family is unknown).
pub fn not_found_note(server_msg: &str) -> Option<String> {
    let name = if let Some(rest) = server_msg.trim().strip_prefix("model:") {
        rest.split_whitespace().next()?.to_string()
    } else {
        let start = server_msg.find("model `")? + "model `".len();
        let len = server_msg[start..].find('`')?;
        server_msg[start..start + len].to_string()
    };
    let row = lookup(&name);
    let what = match row {
        Some(m) if m.is_retired() => match &m.retired_on {
            Some(d) => format!("{name} was retired on {d}"),
            None => format!("{name} is retired"),
        },
        _ => format!("model {name} is unknown to this server or retired"),
    };
    let family = row.map(|m| m.family.clone()).unwrap_or_else(|| {
        let k = key(&name);
        ["opus", "sonnet", "haiku", "fable"]
            .into_iter()
            .find(|f| k.contains(f))
            .unwrap_or("")
            .to_string()
    });
    let mut current = current_of_family(&family);
    if current.is_empty() {
        let vendor = row.map_or(
            if key(&name).starts_with("claude") {
                Vendor::Anthropic
            } else {
                Vendor::OpenAi
            },
            |m| m.vendor,
        );
        current = current_models(vendor);
    }
    Some(format!("{what}; current models: {}", current.join(", ")))
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
    fn the_generated_table_is_the_json_file_as_serde_reads_it() {
        let parsed: Table = serde_json::from_str(MODELS_JSON).unwrap();
        assert_eq!(format!("{:#?}", generated_table()), format!("{parsed:#?}"));
    }

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
    fn a_404_names_the_retirement_and_the_current_models() {
        let n = not_found_note("model: claude-sonnet-4-20250514").unwrap();
        assert!(
            n.starts_with("claude-sonnet-4-20250514 was retired on 2026-06-15"),
            "{n}"
        );
        assert!(n.contains("claude-sonnet-5-5"), "{n}");
        let n = not_found_note("model: claude-opus-9-9").unwrap();
        assert!(
            n.contains("unknown") && n.contains("claude-opus-5-5"),
            "{n}"
        );
        assert!(not_found_note("Not Found").is_none());
    }

    #[test]
    fn max_tokens_and_context_follow_the_table() {
        assert_eq!(max_tokens_for("claude-sonnet-5-5", None), 32_000);
        assert_eq!(max_tokens_for("claude-haiku-4-5", Some(100_000)), 64_000);
        assert_eq!(max_tokens_for("claude-opus-4-1", None), 32_000);
        assert_eq!(max_tokens_for("smollm2", None), 16_384);
        assert_eq!(max_tokens_for("smollm2", Some(500_000)), 500_000);
        assert_eq!(max_context_for("claude-haiku-4-5"), 200_000);
        assert_eq!(max_context_for("smollm2"), 200_000);
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
