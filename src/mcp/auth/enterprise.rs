//! Enterprise-managed authorization (SEP-990, an MCP extension): the ID token your company's
//! identity provider gave you is exchanged there for an ID-JAG (RFC 8693 token exchange), which
//! the MCP server's authorization server takes as a JWT bearer grant (RFC 7523), with the
//! client's own authentication. No browser. The ID token comes from the entry's
//! `idpIdToken` (normally `${VAR}`), never from a file of the project.
use super::client::Registration;
use super::net;
use super::store::{now, Saved};
use base64::Engine;
use serde_json::Value;

/// The identity provider's side, from the entry's `oauth` settings.
#[derive(Debug, Clone, Default)]
pub struct Idp {
    pub token_endpoint: String,
    pub client_id: Option<String>,
    pub id_token: String,
}

fn post_form(
    url: &str,
    pairs: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> Result<Value, String> {
    let mut f = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        f.append_pair(k, v);
    }
    let body = f.finish();
    let auth = basic.map(|(id, secret)| {
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let raw = format!("{}:{}", enc(id), enc(secret));
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(raw)
        )
    });
    let mut headers = vec![
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Accept", "application/json"),
    ];
    if let Some(a) = auth.as_deref() {
        headers.push(("Authorization", a));
    }
    let a = net::call("POST", url, &headers, Some(body.as_bytes()))?;
    let v: Value = serde_json::from_slice(&a.body).unwrap_or(Value::Null);
    if a.status != 200 {
        let e = v.get("error").and_then(Value::as_str).unwrap_or("error");
        return Err(format!("{url} refused (HTTP {}): {e}", a.status));
    }
    Ok(v)
}

/// Exchange, then the JWT bearer grant; the token into `saved`.
pub fn sign_in(
    saved: &mut Saved,
    reg: &Registration,
    idp: &Idp,
    issuer: &str,
    scope: Option<&str>,
) -> Result<(), String> {
    let mut pairs = vec![
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ),
        ("subject_token", idp.id_token.as_str()),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token",
        ),
        (
            "requested_token_type",
            "urn:ietf:params:oauth:token-type:id-jag",
        ),
        ("audience", issuer),
        ("resource", saved.resource.as_str()),
    ];
    if let Some(c) = &idp.client_id {
        pairs.push(("client_id", c));
    }
    if let Some(s) = scope {
        pairs.push(("scope", s));
    }
    let jag = post_form(&idp.token_endpoint, &pairs, None)?;
    let jag = jag
        .get("access_token")
        .and_then(Value::as_str)
        .ok_or("the identity provider's answer has no token")?
        .to_string();
    let mut pairs = vec![
        ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
        ("assertion", jag.as_str()),
        ("resource", saved.resource.as_str()),
    ];
    if let Some(s) = scope {
        pairs.push(("scope", s));
    }
    let basic = match (&reg.secret, reg.method.as_str()) {
        (Some(s), "client_secret_basic") => Some((reg.client_id.as_str(), s.as_str())),
        (Some(s), _) => {
            pairs.push(("client_id", reg.client_id.as_str()));
            pairs.push(("client_secret", s.as_str()));
            None
        }
        (None, _) => {
            pairs.push(("client_id", reg.client_id.as_str()));
            None
        }
    };
    let t = post_form(&saved.token_endpoint, &pairs, basic)?;
    saved.access_token = t
        .get("access_token")
        .and_then(Value::as_str)
        .ok_or("the token endpoint's answer has no access_token")?
        .to_string();
    saved.refresh_token = t
        .get("refresh_token")
        .and_then(Value::as_str)
        .map(str::to_string);
    saved.expires_at = t
        .get("expires_in")
        .and_then(Value::as_u64)
        .map(|e| now() + e)
        .unwrap_or(0);
    saved.scope = t
        .get("scope")
        .and_then(Value::as_str)
        .or(scope)
        .unwrap_or_default()
        .to_string();
    Ok(())
}
