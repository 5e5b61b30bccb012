//! OAuth for remote MCP servers (the MCP authorization spec, 2025-06-18 / 2025-11-25;
//! docs/mcp.md, "Sign-in"). The HTTP transport asks [`Auth::header`] for each request's
//! `Authorization`, and hands a 401 or a 403 `insufficient_scope` to [`Auth::challenge`],
//! which refreshes the token, gets one with client credentials, or signs in through the
//! browser, then lets the request be sent again. A browser sign-in happens only where a
//! person asked for it (`bash-agent mcp login NAME`, or `BASH_AGENT_MCP_BROWSER_SIGN_IN=1`
//! for an automated browser); any other run fails at once, naming that command.
mod client;
mod discover;
mod enterprise;
mod grant;
mod jwt;
mod loopback;
mod net;
mod store;

use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The server entry's `oauth` object.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub metadata_url: Option<String>,
    pub scopes: Option<String>,
    pub callback_port: u16,
    /// `"grant": "client_credentials"`: no browser ever; the client's own secret.
    pub client_credentials: bool,
    /// `privateKeyFile`: a PEM key for `private_key_jwt` client assertions.
    pub private_key_file: Option<String>,
    /// `idpTokenEndpoint` / `idpClientId` / `idpIdToken`: enterprise-managed sign-in.
    pub idp: Option<enterprise::Idp>,
}

impl Settings {
    /// From the entry as written; `${VAR}` expanded in the secret (so the secret itself can
    /// stay out of the file).
    pub fn from_entry(raw: &Value) -> Result<Settings, String> {
        let o = raw.get("oauth").cloned().unwrap_or(Value::Null);
        let s = |k: &str| -> Result<Option<String>, String> {
            match o.get(k).and_then(Value::as_str) {
                Some(v) if !v.is_empty() => crate::mcp::config::expand(v).map(Some),
                _ => Ok(None),
            }
        };
        Ok(Settings {
            client_id: s("clientId")?,
            client_secret: s("clientSecret")?,
            metadata_url: s("clientMetadataUrl")?,
            scopes: s("scopes")?,
            callback_port: o
                .get("callbackPort")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(65535) as u16,
            client_credentials: s("grant")?.as_deref() == Some("client_credentials"),
            private_key_file: s("privateKeyFile")?,
            idp: match (s("idpTokenEndpoint")?, s("idpIdToken")?) {
                (Some(token_endpoint), Some(id_token)) => Some(enterprise::Idp {
                    token_endpoint,
                    client_id: s("idpClientId")?,
                    id_token,
                }),
                _ => None,
            },
        })
    }
}

static BROWSER_OK: AtomicBool = AtomicBool::new(false);

/// `mcp login`: this process may open the browser.
pub fn allow_browser() {
    BROWSER_OK.store(true, Ordering::SeqCst);
}

fn browser_allowed() -> bool {
    BROWSER_OK.load(Ordering::SeqCst)
        || std::env::var("BASH_AGENT_MCP_BROWSER_SIGN_IN").is_ok_and(|v| v == "1")
}

/// Sign-ins tried by one connection before giving up (a server that keeps refusing).
const MAX_SIGN_INS: u32 = 3;

struct State {
    saved: Option<store::Saved>,
    sign_ins: u32,
}

/// One HTTP server's authorization.
pub struct Auth {
    name: String,
    url: String,
    settings: Settings,
    state: Mutex<State>,
}

impl Auth {
    pub fn new(name: &str, url: &str, raw: &Value) -> Result<Auth, String> {
        Ok(Auth {
            name: name.to_string(),
            url: url.to_string(),
            settings: Settings::from_entry(raw)?,
            state: Mutex::new(State {
                saved: store::load(name, url),
                sign_ins: 0,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `Bearer <token>` for a request, refreshing an expired token first when it can.
    pub fn header(&self) -> Option<String> {
        let mut st = self.lock();
        let s = st.saved.as_mut()?;
        if s.access_token.is_empty() {
            return None;
        }
        if s.expires_at != 0 && store::now() + 30 >= s.expires_at && s.refresh_token.is_some() {
            let mut next = s.clone();
            if grant::refresh(&mut next).is_ok() {
                let _ = store::save(&self.name, &next);
                *s = next;
            }
        }
        Some(format!("Bearer {}", s.access_token))
    }

    fn needs_login(&self, why: &str) -> String {
        format!(
            "MCP server {} needs you to sign in ({why}): run `bash-agent mcp login {}`",
            self.name, self.name
        )
    }

    /// A 401 or 403 with its `WWW-Authenticate`: Ok when the request should be sent again
    /// (a new token is in place), else why not.
    pub fn challenge(&self, status: u16, www: Option<&str>) -> Result<(), String> {
        let ch = discover::parse_challenge(www.unwrap_or(""));
        let step_up = status == 403;
        if step_up && ch.error.as_deref() != Some("insufficient_scope") {
            return Err(format!(
                "HTTP 403: the server refuses this request{}",
                ch.error.map(|e| format!(" ({e})")).unwrap_or_default()
            ));
        }
        let mut st = self.lock();
        st.sign_ins += 1;
        if st.sign_ins > MAX_SIGN_INS {
            return Err(format!(
                "MCP server {}: still refused after {MAX_SIGN_INS} sign-ins; giving up",
                self.name
            ));
        }
        let before = st.saved.clone();
        if step_up {
            let granted = before.as_ref().map(|s| s.scope.clone()).unwrap_or_default();
            let needed = ch.scope.clone().unwrap_or_default();
            if !needed.is_empty()
                && needed
                    .split_whitespace()
                    .all(|w| granted.split_whitespace().any(|g| g == w))
            {
                return Err(format!(
                    "MCP server {}: refused even with the scope it asks for ({needed})",
                    self.name
                ));
            }
        } else if let Some(s) = before.as_ref().filter(|s| s.refresh_token.is_some()) {
            let mut next = s.clone();
            if grant::refresh(&mut next).is_ok() {
                let _ = store::save(&self.name, &next);
                st.saved = Some(next);
                return Ok(());
            }
        }
        let saved = self.sign_in(&ch, before.as_ref(), step_up)?;
        let _ = store::save(&self.name, &saved).map_err(|e| eprintln!("bash-agent: warning: {e}"));
        st.saved = Some(saved);
        Ok(())
    }

    /// Discovery, client identification and a grant; the new sign-in.
    fn sign_in(
        &self,
        ch: &discover::Challenge,
        before: Option<&store::Saved>,
        step_up: bool,
    ) -> Result<store::Saved, String> {
        // Nothing to sign in with here: say so at once, without a request.
        if !browser_allowed()
            && self.settings.idp.is_none()
            && !self.settings.client_credentials
            && self.settings.client_secret.is_none()
        {
            return Err(self.needs_login(if step_up {
                "more access"
            } else {
                "no valid token"
            }));
        }
        let d = discover::discover(&self.url, ch)?;
        let before_scope = if step_up {
            before.map(|s| s.scope.as_str()).unwrap_or("")
        } else {
            ""
        };
        let scope = client::scopes(&self.settings, ch.scope.as_deref(), &d, before_scope);
        let mut saved = store::Saved {
            url: self.url.clone(),
            resource: d.resource.clone(),
            token_endpoint: d.token_endpoint.clone(),
            ..Default::default()
        };
        let has_code =
            d.grant_types.is_empty() || d.grant_types.iter().any(|g| g == "authorization_code");
        let cc = self.settings.client_credentials
            || (!has_code
                && d.grant_types.iter().any(|g| g == "client_credentials")
                && self.settings.client_secret.is_some());
        if let Some(idp) = self.settings.idp.as_ref().filter(|_| {
            d.grant_types
                .iter()
                .any(|g| g == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        }) {
            net::check_url(&idp.token_endpoint)?;
            let reg = client::identify(&self.settings, &d, "")?;
            enterprise::sign_in(&mut saved, &reg, idp, &d.issuer, scope.as_deref())?;
            fill(&mut saved, &reg);
            return Ok(saved);
        }
        if cc {
            let reg = client::identify(&self.settings, &d, "")?;
            let assertion = match &self.settings.private_key_file {
                Some(f) => {
                    let pem = std::fs::read_to_string(f)
                        .map_err(|e| format!("privateKeyFile {f}: {e}"))?;
                    Some(jwt::assertion(&pem, &reg.client_id, &d.issuer)?)
                }
                None => None,
            };
            grant::client_credentials(&mut saved, &reg, scope.as_deref(), assertion)?;
            fill(&mut saved, &reg);
            return Ok(saved);
        }
        if !browser_allowed() {
            return Err(self.needs_login(if step_up {
                "more access"
            } else {
                "no valid token"
            }));
        }
        // A dynamic registration from before is reused when its redirect port is free.
        let old =
            before.filter(|b| b.token_endpoint == d.token_endpoint && b.redirect_uri.is_some());
        let old_port = old
            .and_then(|b| url::Url::parse(b.redirect_uri.as_deref().unwrap_or("")).ok())
            .and_then(|u| u.port());
        let port = if self.settings.callback_port != 0 {
            self.settings.callback_port
        } else {
            old_port.unwrap_or(0)
        };
        let listener = match loopback::Listener::bind(port) {
            Ok(l) => l,
            Err(_) if self.settings.callback_port == 0 && port != 0 => loopback::Listener::bind(0)?,
            Err(e) => return Err(e),
        };
        let reg = match old {
            Some(b)
                if self.settings.client_id.is_none()
                    && b.redirect_uri.as_deref() == Some(&listener.redirect_uri()) =>
            {
                client::Registration {
                    client_id: b.client_id.clone(),
                    secret: b.client_secret.clone(),
                    method: b.auth_method.clone(),
                    redirect_uri: b.redirect_uri.clone(),
                }
            }
            _ => client::identify(&self.settings, &d, &listener.redirect_uri())?,
        };
        grant::authorization_code(
            &self.name,
            &d.authorization_endpoint,
            &mut saved,
            &reg,
            listener,
            scope.as_deref(),
        )?;
        fill(&mut saved, &reg);
        Ok(saved)
    }
}

fn fill(saved: &mut store::Saved, reg: &client::Registration) {
    saved.client_id = reg.client_id.clone();
    saved.client_secret = reg.secret.clone();
    saved.auth_method = reg.method.clone();
    saved.redirect_uri = reg.redirect_uri.clone();
}

/// The sign-in state `mcp list` shows for an http server: `None` when nothing is stored.
pub fn status(name: &str, url: &str) -> Option<String> {
    let s = store::load(name, url)?;
    if s.access_token.is_empty() {
        return None;
    }
    let expired = s.expires_at != 0 && store::now() >= s.expires_at;
    Some(match (expired, s.refresh_token.is_some()) {
        (false, _) => "signed in".into(),
        (true, true) => "signed in (token expired; refreshed on use)".into(),
        (true, false) => format!("sign-in expired: bash-agent mcp login {name}"),
    })
}

/// `mcp logout`: forget the tokens and registration. True when there were any.
pub fn logout(name: &str, url: &str) -> bool {
    store::remove(name, url)
}

/// `mcp login`: drop the tokens (a fresh sign-in follows), keep the client registration.
pub fn forget_tokens(name: &str, url: &str) {
    if let Some(mut s) = store::load(name, url) {
        s.access_token.clear();
        s.refresh_token = None;
        s.expires_at = 0;
        let _ = store::save(name, &s);
    }
}

/// The authorization of an http server, unless its entry sends its own `Authorization`
/// header (a static token: OAuth stays out of the way).
pub fn for_server(
    name: &str,
    url: &str,
    headers: &[(String, String)],
    raw: &Value,
) -> Result<Option<std::sync::Arc<Auth>>, String> {
    if headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
    {
        return Ok(None);
    }
    Auth::new(name, url, raw)
        .map(|a| Some(std::sync::Arc::new(a)))
        .map_err(|e| format!("oauth: {e}"))
}

#[cfg(test)]
mod tests;
