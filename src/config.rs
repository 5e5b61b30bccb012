//! Run configuration: provider/model/key/URL resolution (docs/providers.md) and the
//! numeric limits, from flags and environment. Errors carry the reference's wording.
use crate::cli::Opts;
use crate::error::Error;
use crate::options::{parse_count_suffix, Effort, OutputFormat, Thinking};
use crate::provider::{ProviderConfig, ProviderKind};

/// A closed-set value from the environment (flags are parsed by clap before anything
/// else runs); a bad value is a usage error naming the variable.
fn env_enum<T: clap::ValueEnum>(name: &str) -> Result<Option<T>, Error> {
    match env(name) {
        None => Ok(None),
        Some(v) => T::from_str(v.trim(), false)
            .map(Some)
            .map_err(|_| Error::Usage(format!("Invalid {name}: {v}"))),
    }
}

/// The message for a flag value clap rejected: `Invalid --flag: value`, with the
/// accepted values of a closed set.
pub fn invalid_flag_message(arg: &str, value: &str, valid: &[String]) -> String {
    let flag = arg.split_whitespace().next().unwrap_or(arg);
    if valid.is_empty() {
        format!("Invalid {flag}: {value}")
    } else {
        format!("Invalid {flag}: {value} (expected {})", valid.join("|"))
    }
}

/// Everything a run needs besides the session.
#[derive(Debug, Clone)]
pub struct Config {
    pub provider: ProviderConfig,
    pub max_turns: u64,
    pub max_context: u64,
    pub tool_timeout: u64,
    pub skills: Vec<String>,
    pub output: OutputFormat,
    pub max_result_bytes: usize,
    /// BASH_AGENT_BASH_MODE parsed (0 when invalid: fail closed).
    pub bash_mode: u32,
    pub verbose: bool,
    pub vision: bool,
    /// `--sandbox`, `--add-dir`, `--no-network` (or BASH_AGENT_SANDBOX).
    pub sandbox: crate::sandbox::Settings,
    /// `--system-prompt`, `--append-system-prompt`, `--fallback-model`.
    pub overrides: Overrides,
}

/// Claude Code's launch flags for the prompt and the model (docs/cli.md).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Replaces the built system prompt (the main agent only).
    pub system_prompt: Option<String>,
    /// Appended to the system prompt after a blank line.
    pub append_system_prompt: Option<String>,
    /// The model (an alias resolved) a call goes to when the model stays overloaded.
    pub fallback_model: Option<String>,
}

/// `^[0-7]{4}$` → bits, else 0 (fail closed).
pub fn parse_bash_mode(s: &str) -> u32 {
    if s.len() == 4 && s.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        u32::from_str_radix(s, 8).unwrap_or(0)
    } else {
        0
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn num_flag(v: &Option<String>, flag: &str, default: u64, suffix: bool) -> Result<u64, Error> {
    match v {
        None => Ok(default),
        Some(s) => {
            let parsed = if suffix {
                parse_count_suffix(s)
            } else {
                s.trim().parse::<u64>().ok()
            };
            parsed.ok_or_else(|| Error::Usage(format!("Invalid {flag}: {s}")))
        }
    }
}

/// `--output-format` (`--print` is stream-json).
pub fn output_format(o: &Opts) -> Result<OutputFormat, Error> {
    match (o.print, o.output_format.as_deref()) {
        (true, _) | (_, Some("stream-json")) => Ok(OutputFormat::StreamJson),
        (_, None) | (_, Some("human")) => Ok(OutputFormat::Human),
        (_, Some("text")) => Ok(OutputFormat::Text),
        (_, Some("json")) => Ok(OutputFormat::Json),
        (_, Some(other)) => Err(Error::Usage(format!(
            "Invalid --output-format: {other} (expected human|text|json|stream-json)"
        ))),
    }
}

/// Resolve flags + environment. `need_key` is false for commands that never call a model.
pub fn resolve(o: &Opts, need_key: bool) -> Result<Config, Error> {
    resolve_with(o, need_key, &crate::settings::load_here()?)
}

/// [`resolve`] with the settings files already read (the agent reads them once a run).
pub fn resolve_with(
    o: &Opts,
    need_key: bool,
    settings: &crate::settings::Settings,
) -> Result<Config, Error> {
    // The settings files fill in what neither a flag nor the environment gave.
    if o.sub_agent_notify.is_none() {
        for w in &settings.warnings {
            eprintln!("bash-agent: warning: {}", crate::util::shown::shown(w));
        }
    }
    let o = &crate::settings::overlay(o, settings);
    let explicit_provider = o.provider.is_some();
    let pname = o.provider.clone().unwrap_or_else(|| "claude".into());
    let mut kind = ProviderKind::parse(&pname).ok_or_else(|| {
        Error::Usage(format!(
            "Unknown provider: {pname} (use claude|openai|responses)"
        ))
    })?;
    // `sonnet`, `opus`, `haiku`, … resolve through the model table.
    let mut model = o
        .model
        .clone()
        .filter(|m| !m.is_empty())
        .map(|m| crate::provider::models::resolve_alias(&m));
    let place = place_key(o, explicit_provider, &mut kind, &model);
    if place.deepseek_default && model.is_none() {
        model = Some(crate::provider::models::default_model("deepseek").into());
    }
    let (api_key, mut base_url) = (place.key, place.base);
    if need_key && api_key.is_empty() && base_url.is_empty() {
        return Err(Error::Runtime(format!(
            "No API key. Set {} or use --api-key\n{}",
            place.missing_var,
            crate::settings::NO_KEY_HELP
        )));
    }
    if base_url.is_empty() {
        base_url = kind.default_base_url().into();
    }
    let output = output_format(o)?;
    let effort = match o.effort {
        Some(e) => Some(e),
        None => env_enum::<Effort>("EFFORT")?,
    };
    let thinking = match o.thinking {
        Some(t) => Some(t),
        None => env_enum::<Thinking>("THINKING")?,
    };
    let vision = match o.vision.clone().or_else(|| env("AGENT_VISION")).as_deref() {
        None | Some("off") => false,
        Some("on") => true,
        Some(x) => {
            return Err(Error::Usage(format!(
                "Invalid vision setting: {x} (expected on|off)"
            )))
        }
    };
    let model = model.unwrap_or_else(|| kind.default_model().into());
    // The model table bounds max_tokens and sets the defaults (docs/providers.md#the-model-table).
    let max_tokens = match &o.max_tokens {
        None => None,
        some => Some(num_flag(some, "--max-tokens", 0, true)?),
    };
    let max_tokens = crate::provider::models::max_tokens_for(&model, max_tokens);
    let max_context = num_flag(
        &o.max_context,
        "--max-context",
        crate::provider::models::max_context_for(&model),
        true,
    )?;
    let provider = ProviderConfig {
        kind,
        model,
        api_key,
        base_url: base_url.trim_end_matches('/').to_string(),
        max_tokens,
        effort,
        thinking,
        verbose: o.verbose,
    };
    Ok(Config {
        provider,
        max_turns: num_flag(&o.max_turns, "--max-turns", 1000, false)?.max(1),
        max_context,
        tool_timeout: num_flag(&o.tool_timeout, "--tool-timeout", 600, false)?,
        skills: o.skill.clone(),
        output,
        max_result_bytes: env("TOOL_RESULT_MAX_BYTES")
            .and_then(|v| v.parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or(100_000),
        bash_mode: parse_bash_mode(&env("BASH_AGENT_BASH_MODE").unwrap_or_else(|| "0467".into())),
        verbose: o.verbose,
        vision,
        sandbox: sandbox_settings(o)?,
        overrides: Overrides {
            system_prompt: o.system_prompt.clone(),
            append_system_prompt: o.append_system_prompt.clone().filter(|s| !s.is_empty()),
            fallback_model: o
                .fallback_model
                .clone()
                .filter(|m| !m.is_empty())
                .map(|m| crate::provider::models::resolve_alias(&m)),
        },
    })
}

/// Where the key goes: the key and base URL of a run (either may be empty).
struct Placement {
    key: String,
    base: String,
    /// Only DEEPSEEK_API_KEY was there: DeepSeek's default model applies.
    deepseek_default: bool,
    /// The variable to name when no key was found.
    missing_var: &'static str,
}

/// The key → host rule (docs/providers.md, "Which key goes where"): a vendor's key only
/// ever goes to that vendor's host.
/// - `--api-key` goes wherever the base URL says (the user paired them).
/// - A base URL from the provider's own variable (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`)
///   pairs with that provider's key variable (a gateway, or DeepSeek as its docs show).
/// - `--base-url` naming an official host takes that vendor's key; any other server takes
///   the provider's key variable.
/// - No base URL: a DeepSeek model with DEEPSEEK_API_KEY goes to DeepSeek; else the
///   provider's own key to its own host; else, with only DEEPSEEK_API_KEY, DeepSeek (the
///   Anthropic-compatible API unless `-p` said otherwise).
fn place_key(
    o: &Opts,
    explicit_provider: bool,
    kind: &mut ProviderKind,
    model: &Option<String>,
) -> Placement {
    use crate::provider::hosts::{self, key_var};
    use crate::provider::models::{self, Vendor};
    let own = match kind {
        ProviderKind::Claude => Vendor::Anthropic,
        _ => Vendor::OpenAi,
    };
    let prefix = match own {
        Vendor::Anthropic => "ANTHROPIC",
        _ => "OPENAI",
    };
    let own_key = || env(key_var(own)).unwrap_or_default();
    let place = |key: String, base: String| Placement {
        key,
        base,
        deepseek_default: false,
        missing_var: key_var(own),
    };
    let deepseek_base = |k: ProviderKind| match k {
        ProviderKind::Claude => hosts::DEEPSEEK_ANTHROPIC_BASE,
        _ => hosts::DEEPSEEK_BASE,
    };
    if let Some(base) = o.base_url.clone().filter(|b| !b.is_empty()) {
        let key = match (&o.api_key, hosts::vendor_of(&base)) {
            (Some(k), _) => k.clone(),
            (None, Some(v)) => env(key_var(v)).unwrap_or_default(),
            (None, None) => own_key(),
        };
        let mut p = place(key, base.clone());
        if let Some(v) = hosts::vendor_of(&base) {
            p.missing_var = key_var(v);
            if p.key.is_empty() {
                // An official host without its key: fail rather than send it none.
                p.base.clear();
            }
        }
        return p;
    }
    if let Some(base) = env(&format!("{prefix}_BASE_URL")) {
        let key = o.api_key.clone().unwrap_or_else(own_key);
        return place(key, base);
    }
    if let Some(k) = o.api_key.clone() {
        return place(k, String::new());
    }
    let model_vendor = model.as_deref().and_then(models::lookup).map(|m| m.vendor);
    let deepseek_key = env(key_var(Vendor::DeepSeek));
    if let (Some(Vendor::DeepSeek), Some(k)) = (model_vendor, &deepseek_key) {
        return place(k.clone(), deepseek_base(*kind).into());
    }
    let key = own_key();
    if !key.is_empty() {
        return place(key, String::new());
    }
    if let Some(k) = deepseek_key {
        if !explicit_provider {
            *kind = ProviderKind::Claude;
        }
        let mut p = place(k, deepseek_base(*kind).into());
        p.deepseek_default = true;
        return p;
    }
    place(String::new(), String::new())
}

/// The sandbox flags: mode from `--sandbox` or BASH_AGENT_SANDBOX; every `--add-dir` must
/// be an existing folder (a typo must not silently leave it read-only).
pub fn sandbox_settings(o: &Opts) -> Result<crate::sandbox::Settings, Error> {
    use crate::sandbox::{Mode, Settings, MODE_ENV};
    let mode = match o.sandbox.clone().or_else(|| env(MODE_ENV)) {
        None => Mode::default(),
        Some(m) => Mode::parse(&m).ok_or_else(|| {
            Error::Usage(format!(
                "Invalid --sandbox: {m} (expected workspace-write|read-only|off)"
            ))
        })?,
    };
    let mut add_dirs = Vec::new();
    let mut add_dir_names = Vec::new();
    let cwd = std::env::current_dir().unwrap_or_default();
    for d in &o.add_dir {
        match std::fs::canonicalize(d) {
            Ok(p) if p.is_dir() => {
                add_dirs.push(p);
                add_dir_names.push(cwd.join(d));
            }
            _ => {
                return Err(Error::Usage(format!(
                    "Invalid --add-dir: {d} (not an existing folder)"
                )))
            }
        }
    }
    Ok(Settings {
        mode,
        add_dirs,
        add_dir_names,
        no_network: o.no_network,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn suffixes() {
        assert_eq!(parse_count_suffix("200k"), Some(200_000));
        assert_eq!(parse_count_suffix("2M"), Some(2_000_000));
        assert_eq!(parse_count_suffix("1g"), Some(1_000_000_000));
        assert_eq!(parse_count_suffix("16384"), Some(16384));
        for bad in ["", "k", "1.5k", "-1", "12x", "1kk"] {
            assert_eq!(parse_count_suffix(bad), None, "{bad}");
        }
    }
    #[test]
    fn modes() {
        assert_eq!(parse_bash_mode("0467"), 0o467);
        assert_eq!(parse_bash_mode("0777"), 0o777);
        assert_eq!(parse_bash_mode("0468"), 0);
        assert_eq!(parse_bash_mode("467"), 0);
    }
}
