//! `bash-agent config [--json]`: every effective setting of a run started here, and where it
//! came from (flag, environment, local/project/user settings file, default). The API key is
//! never printed: only whether one is set and from where.
use crate::cli::Opts;
use crate::error::Result;
use crate::settings::{self, Source};
use serde_json::{json, Map, Value};

pub fn cmd_config(o: &Opts) -> Result {
    let s = settings::load_here()?;
    for w in &s.warnings {
        eprintln!("bash-agent: warning: {}", crate::util::shown::shown(w));
    }
    let cfg = crate::config::resolve(o, false)?;
    let p = &cfg.provider;
    let provider = p.kind.name();
    let mut rows: Vec<(&str, Value, Source)> = Vec::new();
    let mut row = |key: &'static str, v: Value| {
        let src = settings::source_of(key, o, &s, provider);
        rows.push((key, v, src));
    };
    row("provider", provider.into());
    row("model", p.model.clone().into());
    row("base_url", p.base_url.clone().into());
    row("max_context", cfg.max_context.into());
    row("max_tokens", p.max_tokens.into());
    row(
        "thinking",
        p.thinking
            .map(|t| Value::from(t.as_str()))
            .unwrap_or(Value::Null),
    );
    row(
        "effort",
        p.effort
            .map(|e| Value::from(e.as_str()))
            .unwrap_or(Value::Null),
    );
    // The mode a flag or the environment sets, over the settings' (rules stay theirs).
    let mode_over = o
        .permission_mode
        .clone()
        .or_else(|| std::env::var(crate::permission::gate::MODE_ENV).ok())
        .filter(|m| !m.trim().is_empty());
    row("vision", if cfg.vision { "on" } else { "off" }.into());
    for key in [
        "api_key_env",
        "sandbox",
        "permissions",
        "tool_env_allow",
        "mcpServers",
        "hooks",
        "prices",
    ] {
        let mut v = s.get(key).cloned().unwrap_or(match key {
            "sandbox" => json!({"mode": s.sandbox_mode()}),
            "permissions" => json!({"mode": s.permission_mode()}),
            _ => Value::Null,
        });
        if let (Some(m), "permissions") = (&mode_over, key) {
            v["mode"] = m.clone().into();
        }
        row(key, v);
    }
    let (key_set, key_src) = api_key_source(o, &s, provider, !p.api_key.is_empty());
    let (trust_value, trust_src) = trust_row();
    let path_of = |key: &str| {
        s.entries
            .get(key)
            .and_then(|e| e.path.as_ref())
            .map(|p| p.display().to_string())
    };
    if o.json {
        let mut m = Map::new();
        for (k, v, src) in &rows {
            let mut e = Map::new();
            e.insert("value".into(), v.clone());
            e.insert("source".into(), src.label().into());
            if matches!(src, Source::User | Source::Project | Source::Local) {
                e.insert("file".into(), path_of(k).into());
            }
            m.insert(k.to_string(), Value::Object(e));
        }
        m.insert(
            "api_key".into(),
            json!({"value": if key_set { "(set)" } else { "(not set)" }, "source": key_src}),
        );
        let files: Vec<String> = s.files.iter().map(|f| f.display().to_string()).collect();
        m.insert("files".into(), files.into());
        m.insert("warnings".into(), s.warnings.clone().into());
        m.insert(
            "trust".into(),
            json!({"value": trust_value, "source": trust_src, "ignored": s.ignored}),
        );
        println!("{}", Value::Object(m));
        return Ok(());
    }
    for (k, v, src) in &rows {
        let shown = match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        let from = match path_of(k) {
            Some(f) if matches!(src, Source::User | Source::Project | Source::Local) => {
                format!("{} {f}", src.label())
            }
            _ => src.label(),
        };
        println!("{k:<15} {shown}  ({from})");
    }
    println!(
        "{:<15} {}  ({key_src})",
        "api_key",
        if key_set { "(set)" } else { "(not set)" }
    );
    println!("{:<15} {trust_value}  ({trust_src})", "trust");
    for i in &s.ignored {
        println!("{:<15} ignored: {i}", "");
    }
    Ok(())
}

/// Whether this folder's project files count (docs/sandbox.md, "Trust"), and why.
fn trust_row() -> (&'static str, String) {
    use crate::settings::trust;
    if trust::flag() {
        return ("trusted", "flag --trust".into());
    }
    let Ok(cwd) = crate::session::paths::physical_cwd() else {
        return ("not trusted", "default".into());
    };
    let found = trust::lookup(&trust::root_of(&cwd));
    match (found.decision, found.entry) {
        (Some(t), Some(e)) => (
            if t { "trusted" } else { "not trusted" },
            format!(
                "user settings trusted_folders {}",
                crate::util::shown::path(&e)
            ),
        ),
        _ => ("not trusted", "default".into()),
    }
}

/// Where the key comes from, without reading it out.
fn api_key_source(o: &Opts, s: &settings::Settings, provider: &str, set: bool) -> (bool, String) {
    if o.api_key.is_some() {
        return (true, "flag".into());
    }
    if let Some(var) = s.text("api_key_env") {
        if std::env::var(&var).is_ok_and(|v| !v.is_empty()) {
            return (true, format!("env {var} (api_key_env)"));
        }
    }
    let std_var = match provider {
        "openai" | "responses" => "OPENAI_API_KEY",
        _ => "ANTHROPIC_API_KEY",
    };
    for var in [std_var, "DEEPSEEK_API_KEY"] {
        if std::env::var(var).is_ok_and(|v| !v.is_empty()) {
            return (true, format!("env {var}"));
        }
    }
    (set, "none".into())
}
