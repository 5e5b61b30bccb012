//! The environment of every process the agent starts for a tool, and the redaction of the
//! configured key in what tools print.
//!
//! Tool processes run code the model chose, so anything in their environment can end up
//! in the conversation, the session files and the next request. Provider keys and
//! anything named like a credential are therefore left out; a user who really wants one
//! passed on names it in `BASH_AGENT_TOOL_ENV_ALLOW` (comma-separated) or in the settings'
//! `tool_env_allow` list ([`allow_names`]). Neither can pass the provider key on.
use std::borrow::Cow;
use std::ffi::OsString;
use std::sync::Mutex;

/// Names of variables a tool may receive even though they look like secrets.
pub const ALLOW_ENV: &str = "BASH_AGENT_TOOL_ENV_ALLOW";

/// What replaces a secret's value in tool output.
pub const REDACTED: &str = "[REDACTED]";

/// Values that must never appear in tool output (the configured API key).
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remember `value` as a secret: it is redacted from tool output and no variable holding
/// it reaches a tool. Short values are ignored (redacting them would mangle output).
pub fn register_secret(value: &str) {
    if value.len() < 8 {
        return;
    }
    let mut s = SECRETS.lock().unwrap_or_else(|p| p.into_inner());
    if !s.iter().any(|v| v == value) {
        s.push(value.to_string());
    }
}

/// Register the password of a base URL (`https://user:pass@host`) as a secret.
pub fn register_url_password(url: &str) {
    if let Some(p) = url::Url::parse(url)
        .ok()
        .and_then(|u| u.password().map(str::to_string))
    {
        register_secret(&p);
        let decoded = percent_encoding::percent_decode_str(&p).decode_utf8_lossy();
        register_secret(&decoded);
    }
}

/// Register the configured key and the values of the provider variables.
pub fn register_provider_keys(configured: &str) {
    register_secret(configured);
    for v in ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY"] {
        if let Ok(k) = std::env::var(v) {
            register_secret(&k);
        }
    }
}

/// `text` with every registered secret replaced by [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    let s = SECRETS.lock().unwrap_or_else(|p| p.into_inner());
    let mut out = Cow::Borrowed(text);
    for v in s.iter() {
        if out.contains(v.as_str()) {
            out = Cow::Owned(out.replace(v.as_str(), REDACTED));
        }
    }
    out
}

/// Does the variable name look like it holds a credential?
pub fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    n.ends_with("_API_KEY")
        || n.contains("API_KEY")
        || n.ends_with("_TOKEN")
        || n.contains("SECRET")
        || n.contains("PASSWORD")
        || n.contains("CREDENTIAL")
}

/// Is `name` (holding `value`) a provider key: one of the provider variables, the internal
/// one, or any variable whose value is a registered secret (the run's key, whichever
/// variable `api_key_env` named)? Such a value never goes into an extension's
/// configuration (MCP `${VAR}` expansion).
pub fn is_provider_key(name: &str, value: &str) -> bool {
    KEY_VARS.contains(&name)
        || SECRETS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|s| value.contains(s.as_str()))
}

/// Names allowed by the settings (`tool_env_allow`), set once at start-up.
static SETTINGS_ALLOW: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The provider key variables: never passed to a tool, whatever an allow list says.
const KEY_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    INTERNAL_KEY_ENV,
    INTERNAL_BASE_URL_ENV,
];

/// Let the settings' `tool_env_allow` names through the scrubbing. Call after the keys are
/// registered: a name that is a provider key variable, `key_env` (the variable the run's
/// key came from, `api_key_env`), or a variable whose value is a registered secret is
/// refused; the returned warnings say which and why.
pub fn allow_names(names: &[String], key_env: Option<&str>) -> Vec<String> {
    let secrets = SECRETS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut ok = Vec::new();
    let mut warnings = Vec::new();
    for n in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let holds_secret = std::env::var(n)
            .map(|v| secrets.iter().any(|s| v.contains(s.as_str())))
            .unwrap_or(false);
        if KEY_VARS.contains(&n) || key_env == Some(n) || holds_secret {
            warnings.push(format!(
                "tool_env_allow: {n} holds the provider key; it is never passed to tools"
            ));
        } else {
            ok.push(n.to_string());
        }
    }
    *SETTINGS_ALLOW.lock().unwrap_or_else(|p| p.into_inner()) = ok;
    warnings
}

fn allow_list(vars: &[(OsString, OsString)]) -> Vec<String> {
    let mut names: Vec<String> = vars
        .iter()
        .find(|(k, _)| k == ALLOW_ENV)
        .and_then(|(_, v)| v.to_str())
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    names.extend(
        SETTINGS_ALLOW
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned(),
    );
    names
}

/// The internal variable that carries the API key to a sub-agent (never to a tool).
pub const INTERNAL_KEY_ENV: &str = "BASH_AGENT_SUB_API_KEY";
/// The internal variable that carries a base URL holding a password to a sub-agent or a
/// restarted run (never in argv, where `ps` shows it; never to a tool).
pub const INTERNAL_BASE_URL_ENV: &str = "BASH_AGENT_SUB_BASE_URL";

/// Filter an environment: secret-looking names go (unless allowed), and so does any
/// variable whose value is a registered secret, whatever its name or the allow list.
pub fn scrub(vars: Vec<(OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let allow = allow_list(&vars);
    let secrets = SECRETS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    vars.into_iter()
        .filter(|(k, v)| {
            let name = k.to_string_lossy();
            if name == INTERNAL_KEY_ENV || name == INTERNAL_BASE_URL_ENV {
                return false;
            }
            let val = v.to_string_lossy();
            if secrets.iter().any(|s| val.contains(s.as_str())) {
                return false;
            }
            if KEY_VARS.contains(&name.as_ref()) {
                return false;
            }
            !is_secret_name(&name) || allow.iter().any(|a| a == name.as_ref())
        })
        .collect()
}

/// Variables a settings file sets for tools and hooks (Claude Code's `env`), set once at
/// start-up; their names were checked by settings::claude::env_refused.
static EXTRA: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// Set the variables tools and hooks get on top of the scrubbed environment.
pub fn set_extra(vars: Vec<(String, String)>) {
    *EXTRA.lock().unwrap_or_else(|p| p.into_inner()) = vars;
}

/// The environment for a tool process: this process's environment, scrubbed, with the
/// settings' `env` over it.
pub fn tool_env() -> Vec<(OsString, OsString)> {
    let extra = EXTRA.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut vars = scrub(std::env::vars_os().collect());
    if !extra.is_empty() {
        vars.retain(|(k, _)| !extra.iter().any(|(n, _)| k == n.as_str()));
        vars.extend(extra.into_iter().map(|(k, v)| (k.into(), v.into())));
    }
    vars
}

/// Give `cmd` exactly the [`tool_env`] environment (nothing inherited besides it).
pub fn apply(cmd: &mut std::process::Command) {
    cmd.env_clear();
    for (k, v) in tool_env() {
        cmd.env(k, v);
    }
}

/// [`tool_env`] as text pairs, for extension processes (MCP servers, hooks) that take their
/// environment as strings; a variable that is not UTF-8 is left out.
pub fn tool_env_pairs() -> Vec<(String, String)> {
    tool_env()
        .into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn names_that_look_like_secrets_go() {
        for n in [
            "ANTHROPIC_API_KEY",
            "openai_api_key",
            "DEEPSEEK_API_KEY",
            "MY_API_KEY_FILE",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "BASH_AGENT_SUB_API_KEY",
        ] {
            assert!(is_secret_name(n) || n == "BASH_AGENT_SUB_API_KEY", "{n}");
            assert!(scrub(v(&[(n, "x")])).is_empty(), "{n}");
        }
        for n in ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "LANG", "KEYBOARD"] {
            assert_eq!(scrub(v(&[(n, "x")])).len(), 1, "{n}");
        }
    }

    #[test]
    fn allow_list_and_registered_values() {
        let got = scrub(v(&[
            ("GITHUB_TOKEN", "ghp"),
            ("NPM_TOKEN", "n"),
            (ALLOW_ENV, "GITHUB_TOKEN, OTHER"),
        ]));
        let names: Vec<_> = got.iter().map(|(k, _)| k.to_string_lossy()).collect();
        assert_eq!(names, ["GITHUB_TOKEN", ALLOW_ENV]);
        register_secret("sk-unit-test-secret-1");
        let got = scrub(v(&[
            ("INNOCENT", "prefix sk-unit-test-secret-1"),
            ("ANTHROPIC_API_KEY", "sk-unit-test-secret-1"),
            (ALLOW_ENV, "ANTHROPIC_API_KEY,INNOCENT"),
        ]));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            redact("key=sk-unit-test-secret-1!"),
            format!("key={REDACTED}!")
        );
        assert!(matches!(redact("nothing here"), Cow::Borrowed(_)));
    }
}
