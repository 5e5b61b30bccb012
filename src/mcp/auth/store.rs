//! Where sign-ins are kept: one file a server under `~/.bash-agent/mcp-auth/` (the user's
//! bash-agent home, never a project folder), the folder 0700 and each file 0600, written
//! atomically. Keyed by server name and URL, so a server renamed or pointed elsewhere never
//! receives another's token.
use serde::{Deserialize, Serialize};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// One server's client registration and tokens.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Saved {
    pub url: String,
    #[serde(default)]
    pub resource: String,
    #[serde(default)]
    pub token_endpoint: String,
    #[serde(default)]
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    #[serde(default)]
    pub auth_method: String,
    /// The redirect URI the client was registered with (dynamic registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_at: Option<String>,
    #[serde(default)]
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Unix seconds; 0 = unknown.
    #[serde(default)]
    pub expires_at: u64,
    /// The scopes granted (or asked for when the answer did not say).
    #[serde(default)]
    pub scope: String,
}

fn dir() -> PathBuf {
    crate::session::paths::agent_home().join("mcp-auth")
}

fn path(name: &str, url: &str) -> PathBuf {
    let h = crate::util::hash::fnv64(url.as_bytes());
    dir().join(format!("{name}-{h:016x}.json"))
}

pub fn load(name: &str, url: &str) -> Option<Saved> {
    let text = std::fs::read_to_string(path(name, url)).ok()?;
    let s: Saved = serde_json::from_str(&text).ok()?;
    (s.url == url).then_some(s)
}

pub fn save(name: &str, s: &Saved) -> Result<(), String> {
    let d = dir();
    std::fs::create_dir_all(&d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700));
    let p = path(name, &s.url);
    // The atomic write keeps an existing file's mode: make sure that is 0600 first.
    if p.exists() {
        let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600));
    }
    let text = serde_json::to_string_pretty(s).map_err(|e| e.to_string())?;
    crate::util::fsx::write_atomic(&p, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", p.display()))
}

/// Forget a server's sign-in; true when there was one.
pub fn remove(name: &str, url: &str) -> bool {
    std::fs::remove_file(path(name, url)).is_ok()
}

pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
