//! `bash-agent config [--json]`: every effective setting of a run started here, and where it
//! came from (flag, environment, local/project/user settings file, default). The API key is
//! never printed: only whether one is set and from where. Claude Code's files are listed
//! part by part (each rule, the mode, the directories, `env`, every hook) with their file.
use crate::cli::Opts;
use crate::error::Result;
use crate::settings::{self, Source};
use serde_json::{json, Map, Value};

pub fn cmd_config(o: &Opts) -> Result {
    let s = settings::load_here()?;
    let cwd = crate::session::paths::physical_cwd().unwrap_or_default();
    let (hooks, hook_warnings) = crate::hooks::config::load(&cwd);
    for w in &hook_warnings {
        eprintln!("bash-agent: warning: {}", crate::util::shown::shown(w));
    }
    // (resolve_with prints the files' warnings, once.)
    let cfg = crate::config::resolve_with(o, false, &s)?;
    let p = &cfg.provider;
    let provider = p.kind.name();
    let mut rows: Vec<(&str, Value, Source)> = Vec::new();
    // `defaultMode` of Claude Code's files, when nothing of bash-agent's sets the mode.
    let own_mode = s.get("permissions").and_then(|p| p.get("mode")).is_some();
    let cc_mode = s.claude.mode.clone().filter(|_| !own_mode);
    let mut row = |key: &'static str, mut v: Value| {
        let mut src = settings::source_of(key, o, &s, provider);
        if let (
            Some((m, f)),
            "permissions",
            Source::Default | Source::User | Source::Project | Source::Local,
        ) = (&cc_mode, key, &src)
        {
            v["mode"] = m.clone().into();
            src = Source::Claude(f.display().to_string());
        }
        rows.push((key, v, src));
    };
    row("provider", provider.into());
    row("model", p.model.clone().into());
    row(
        "base_url",
        crate::util::net::redact_userinfo(&p.base_url).into(),
    );
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
        m.insert("claude_code".into(), claude_json(&s.claude));
        m.insert("hooks_loaded".into(), hooks_json(&hooks));
        m.insert("hook_warnings".into(), hook_warnings.into());
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
    print_claude(&s.claude, &hooks);
    Ok(())
}

/// Claude Code's settings as this run applies them, each part with its file.
fn claude_json(c: &settings::claude::Claude) -> Value {
    let file = |p: &std::path::Path| p.display().to_string();
    json!({
        "files": c.files.iter().map(|f| file(f)).collect::<Vec<_>>(),
        "rules": c.rules.iter().map(|(k, r, f)| json!({"kind": settings::claude::kind_name(*k), "rule": r, "file": file(f)})).collect::<Vec<_>>(),
        "mode": c.mode.as_ref().map(|(m, f)| json!({"value": m, "file": file(f)})),
        "additional_directories": c.dirs.iter().map(|(d, f)| json!({"dir": d, "file": file(f)})).collect::<Vec<_>>(),
        "env": c.env.iter().map(|(k, v, f)| json!({"name": k, "value": v, "file": file(f)})).collect::<Vec<_>>(),
        "unused": c.unused,
    })
}

/// Every hook command that loads (bash-agent's files and Claude Code's), with its file.
fn hooks_json(hooks: &[(crate::hooks::HookEvent, crate::hooks::Group)]) -> Value {
    hooks
        .iter()
        .flat_map(|(ev, g)| {
            g.hooks.iter().map(move |h| {
                json!({"event": ev.name(), "matcher": g.matcher, "command": h.command, "file": g.origin})
            })
        })
        .collect()
}

fn print_claude(
    c: &settings::claude::Claude,
    hooks: &[(crate::hooks::HookEvent, crate::hooks::Group)],
) {
    for f in &c.files {
        println!("{:<15} read {}", "claude code", f.display());
    }
    for (k, r, f) in &c.rules {
        println!(
            "{:<15} {} {r}  ({})",
            "",
            settings::claude::kind_name(*k),
            f.display()
        );
    }
    if let Some((m, f)) = &c.mode {
        println!("{:<15} defaultMode {m}  ({})", "", f.display());
    }
    for (d, f) in &c.dirs {
        println!("{:<15} additionalDirectory {d}  ({})", "", f.display());
    }
    for (k, v, f) in &c.env {
        println!("{:<15} env {k}={v}  ({})", "", f.display());
    }
    for u in &c.unused {
        println!("{:<15} not used here: {u}", "");
    }
    for (ev, g) in hooks {
        for h in &g.hooks {
            let m = if g.matcher.is_empty() {
                "*"
            } else {
                &g.matcher
            };
            println!(
                "{:<15} {} [{m}] {}  ({})",
                "hook",
                ev.name(),
                h.command,
                g.origin
            );
        }
    }
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
