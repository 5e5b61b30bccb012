//! Who bash-agent is to the authorization server, in the spec's order: a client registered
//! beforehand (the server entry's `oauth.clientId` / `clientSecret`), a client ID metadata
//! document URL (`oauth.clientMetadataUrl`, when the server supports them), else dynamic
//! registration (RFC 7591). Also the token endpoint's own client authentication
//! (`client_secret_basic`, `client_secret_post` or `none`) and the scopes asked for.
use super::discover::Discovered;
use super::{net, Settings};
use serde_json::{json, Value};

/// A client identity at one authorization server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registration {
    pub client_id: String,
    pub secret: Option<String>,
    pub method: String,
    /// Set for a dynamic registration: the redirect URI it is bound to.
    pub redirect_uri: Option<String>,
}

/// The method to use with a secret, from what the server supports (basic when it says
/// nothing: RFC 8414's default).
fn secret_method(d: &Discovered) -> &'static str {
    let m = &d.token_auth_methods;
    if m.is_empty() || m.iter().any(|x| x == "client_secret_basic") {
        "client_secret_basic"
    } else {
        "client_secret_post"
    }
}

/// The client to sign in as; `redirect` is the loopback URI a new registration names.
pub fn identify(s: &Settings, d: &Discovered, redirect: &str) -> Result<Registration, String> {
    if let Some(id) = &s.client_id {
        let method = match &s.client_secret {
            Some(_) => secret_method(d).to_string(),
            None => "none".to_string(),
        };
        return Ok(Registration {
            client_id: id.clone(),
            secret: s.client_secret.clone(),
            method,
            redirect_uri: None,
        });
    }
    if d.cimd_supported {
        if let Some(u) = &s.metadata_url {
            net::check_url(u)?;
            return Ok(Registration {
                client_id: u.clone(),
                secret: None,
                method: "none".into(),
                redirect_uri: None,
            });
        }
    }
    let Some(endpoint) = &d.registration_endpoint else {
        return Err("the authorization server offers no dynamic registration: set oauth.clientId (and clientSecret) in the server's entry (docs/mcp.md, \"Sign-in\")".into());
    };
    let m = &d.token_auth_methods;
    let want = if m.is_empty() || m.iter().any(|x| x == "none") {
        "none"
    } else {
        secret_method(d)
    };
    let body = json!({
        "client_name": "bash-agent",
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": want,
    });
    let v = net::post_json(endpoint, &body)?;
    let id = v
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or("the registration answer has no client_id")?;
    let secret = v
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_string);
    let method = match (
        v.get("token_endpoint_auth_method").and_then(Value::as_str),
        &secret,
    ) {
        (Some(m), _) => m.to_string(),
        (None, Some(_)) => secret_method(d).to_string(),
        (None, None) => "none".to_string(),
    };
    Ok(Registration {
        client_id: id.to_string(),
        secret,
        method,
        redirect_uri: Some(redirect.to_string()),
    })
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// The scopes to ask for: the settings' `oauth.scopes`, else the challenge's `scope`, else
/// the resource's `scopes_supported`, else none (the parameter is left out); plus
/// `offline_access` when the authorization server lists it (a refresh token, SEP-2207),
/// plus what was asked for before (step-up keeps the earlier scopes).
pub fn scopes(
    s: &Settings,
    challenge: Option<&str>,
    d: &Discovered,
    before: &str,
) -> Option<String> {
    let mut out: Vec<String> = if let Some(x) = &s.scopes {
        words(x)
    } else if let Some(c) = challenge.filter(|c| !c.trim().is_empty()) {
        words(c)
    } else {
        d.scopes_supported.clone()
    };
    if out.is_empty() {
        return None;
    }
    for w in words(before) {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    if d.as_scopes.iter().any(|x| x == "offline_access")
        && !out.iter().any(|x| x == "offline_access")
    {
        out.push("offline_access".into());
    }
    Some(out.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_order() {
        let s = Settings::default();
        let d = Discovered {
            scopes_supported: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        assert_eq!(scopes(&s, Some("x"), &d, "").as_deref(), Some("x"));
        assert_eq!(scopes(&s, None, &d, "").as_deref(), Some("a b"));
        assert_eq!(scopes(&s, Some("w"), &d, "a").as_deref(), Some("w a"));
        assert_eq!(scopes(&s, None, &Discovered::default(), "old"), None);
        let off = Discovered {
            as_scopes: vec!["offline_access".into()],
            scopes_supported: vec!["a".into()],
            ..Default::default()
        };
        assert_eq!(
            scopes(&s, None, &off, "").as_deref(),
            Some("a offline_access")
        );
    }
}
