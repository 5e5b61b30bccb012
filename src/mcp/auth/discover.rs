//! Finding the authorization server (MCP authorization, 2025-06-18 / 2025-11-25):
//! the `WWW-Authenticate` challenge, protected-resource metadata (RFC 9728) from the
//! challenge's `resource_metadata` or the well-known paths, then authorization-server
//! metadata (RFC 8414, then OpenID discovery) in the spec's order, and the 2025-03-26
//! fall-backs (the server's own origin; `/authorize`, `/token`, `/register`).
use super::net;
use serde_json::Value;

/// The parameters of a `Bearer` challenge.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
}

/// Parse `WWW-Authenticate: Bearer k="v", k2=v2`. Only the Bearer challenge is read; a
/// value is capped (a hostile server cannot make us hold megabytes).
pub fn parse_challenge(h: &str) -> Challenge {
    let mut c = Challenge::default();
    let h: String = h.chars().take(4096).collect();
    let Some(pos) = h.to_ascii_lowercase().find("bearer") else {
        return c;
    };
    let mut rest = &h[pos + 6..];
    loop {
        rest = rest.trim_start_matches([' ', ',', '\t']);
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim().to_ascii_lowercase();
        if key.contains(' ') {
            break; // the next challenge's scheme
        }
        rest = &rest[eq + 1..];
        let value;
        if let Some(q) = rest.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = q.char_indices();
            let mut end = q.len();
            while let Some((i, ch)) = chars.next() {
                match ch {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            out.push(n);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    _ => out.push(ch),
                }
            }
            value = out;
            rest = &q[end.min(q.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_string();
            rest = &rest[end..];
        }
        match key.as_str() {
            "resource_metadata" => c.resource_metadata = Some(value),
            "scope" => c.scope = Some(value),
            "error" => c.error = Some(value),
            _ => {}
        }
    }
    c
}

/// What sign-in needs to know about the server and its authorization server.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    /// The RFC 8707 resource indicator (the PRM's `resource`, else the server URL).
    pub resource: String,
    pub scopes_supported: Vec<String>,
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub token_auth_methods: Vec<String>,
    pub grant_types: Vec<String>,
    pub as_scopes: Vec<String>,
    pub cimd_supported: bool,
}

fn strs(v: &Value, k: &str) -> Vec<String> {
    v.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The server URL without fragment (the canonical resource URI).
pub fn canonical(server: &str) -> Result<url::Url, String> {
    let mut u = net::check_url(server)?;
    u.set_fragment(None);
    Ok(u)
}

/// Does the PRM's `resource` cover the server? Same origin, and the server's path under
/// the resource's path (RFC 9728 section 3.3: a mismatch means the metadata is not for
/// this server, and signing in would hand a token to whoever wrote it).
fn resource_covers(resource: &url::Url, server: &url::Url) -> bool {
    let rp = resource.path().trim_end_matches('/');
    resource.origin() == server.origin()
        && (server.path() == rp || server.path().starts_with(&format!("{rp}/")) || rp.is_empty())
}

/// Protected-resource metadata: the challenge's URL, else the path-aware then the root
/// well-known URL. `None` when the server publishes none (2025-03-26 servers).
fn protected_resource(server: &url::Url, ch: &Challenge) -> Result<Option<Value>, String> {
    if let Some(u) = &ch.resource_metadata {
        let u = server
            .join(u)
            .map_err(|e| format!("bad resource_metadata URL: {e}"))?;
        return net::get_json(u.as_str());
    }
    let mut tries = Vec::new();
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        tries.push(format!("/.well-known/oauth-protected-resource{path}"));
    }
    tries.push("/.well-known/oauth-protected-resource".to_string());
    for t in tries {
        let u = server.join(&t).map_err(|e| e.to_string())?;
        if let Some(v) = net::get_json(u.as_str())? {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// The metadata's `issuer` is the one it was fetched for (a trailing `/` aside).
fn same_issuer(named: &str, fetched: &url::Url) -> bool {
    url::Url::parse(named).is_ok_and(|n| {
        n.origin() == fetched.origin()
            && n.path().trim_end_matches('/') == fetched.path().trim_end_matches('/')
    })
}

/// RFC 8414 / OpenID discovery URLs for an issuer, in the spec's order.
fn metadata_urls(issuer: &url::Url) -> Vec<String> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Everything from a 401's challenge to the endpoints.
pub fn discover(server_url: &str, ch: &Challenge) -> Result<Discovered, String> {
    let server = canonical(server_url)?;
    let mut d = Discovered {
        resource: server.to_string(),
        ..Default::default()
    };
    let prm = protected_resource(&server, ch)?;
    // The issuer is named by the resource's metadata (checked against the authorization
    // server's below); a 2025-03-26 server without it is assumed to be its own.
    let named_issuer = prm.is_some();
    let issuer = match prm {
        Some(prm) => {
            if let Some(r) = prm.get("resource").and_then(Value::as_str) {
                let ru = url::Url::parse(r).map_err(|e| format!("bad resource {r:?}: {e}"))?;
                if !resource_covers(&ru, &server) {
                    return Err(format!(
                        "the server's metadata names another resource ({r}), not {server}; not signing in"
                    ));
                }
                d.resource = r.to_string();
            }
            d.scopes_supported = strs(&prm, "scopes_supported");
            let a = strs(&prm, "authorization_servers");
            let first = a
                .first()
                .ok_or("the server's metadata names no authorization server")?;
            net::check_url(first)?
        }
        // 2025-03-26: the MCP server's origin is the authorization server.
        None => {
            let mut o = server.clone();
            o.set_path("");
            o.set_query(None);
            o
        }
    };
    let mut meta = None;
    for u in metadata_urls(&issuer) {
        if let Some(m) = net::get_json(&u)? {
            meta = Some(m);
            break;
        }
    }
    let origin = issuer.origin().ascii_serialization();
    let Some(m) = meta else {
        // No metadata anywhere: the 2025-03-26 default endpoints.
        d.issuer = origin.clone();
        d.authorization_endpoint = format!("{origin}/authorize");
        d.token_endpoint = format!("{origin}/token");
        d.registration_endpoint = Some(format!("{origin}/register"));
        return Ok(d);
    };
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    d.issuer = s("issuer").unwrap_or_else(|| issuer.to_string());
    if named_issuer && !same_issuer(&d.issuer, &issuer) {
        // RFC 8414 section 3.3: metadata naming another issuer is not this server's (a
        // mix-up: the code, the verifier and a signed assertion would go to another).
        return Err(format!(
            "the authorization server's metadata names issuer {}, not {issuer}; not signing in",
            d.issuer
        ));
    }
    d.authorization_endpoint = s("authorization_endpoint")
        .ok_or("the authorization server's metadata has no authorization_endpoint")?;
    d.token_endpoint =
        s("token_endpoint").ok_or("the authorization server's metadata has no token_endpoint")?;
    d.registration_endpoint = s("registration_endpoint");
    for e in [
        Some(&d.authorization_endpoint),
        Some(&d.token_endpoint),
        d.registration_endpoint.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        net::check_url(e)?;
    }
    d.token_auth_methods = strs(&m, "token_endpoint_auth_methods_supported");
    d.grant_types = strs(&m, "grant_types_supported");
    d.as_scopes = strs(&m, "scopes_supported");
    d.cimd_supported = m
        .get("client_id_metadata_document_supported")
        .and_then(Value::as_bool)
        == Some(true);
    let methods = strs(&m, "code_challenge_methods_supported");
    if !methods.is_empty() && !methods.iter().any(|x| x == "S256") {
        return Err("the authorization server does not support PKCE S256; not signing in".into());
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_parameters() {
        let c = parse_challenge(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/y""#,
        );
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.resource_metadata.as_deref(), Some("https://x/y"));
        assert_eq!(parse_challenge("Basic realm=x"), Challenge::default());
        assert_eq!(
            parse_challenge(r#"Bearer scope=plain"#).scope.as_deref(),
            Some("plain")
        );
    }

    #[test]
    fn metadata_for_another_issuer_is_refused() {
        let i = url::Url::parse("https://as.example.com/tenant").unwrap();
        assert!(same_issuer("https://as.example.com/tenant/", &i));
        assert!(!same_issuer("https://evil.example.com/tenant", &i));
        assert!(!same_issuer("https://as.example.com/other", &i));
        assert!(!same_issuer("not a url", &i));
    }

    #[test]
    fn resource_must_cover_the_server() {
        let s = url::Url::parse("http://localhost:1/mcp").unwrap();
        let ok = |r: &str| resource_covers(&url::Url::parse(r).unwrap(), &s);
        assert!(
            ok("http://localhost:1/mcp") && ok("http://localhost:1") && ok("http://localhost:1/")
        );
        assert!(!ok("https://evil.example.com/mcp") && !ok("http://localhost:1/other"));
    }

    #[test]
    fn metadata_order_with_a_path() {
        let u = url::Url::parse("https://a.b/tenant1").unwrap();
        assert_eq!(
            metadata_urls(&u),
            [
                "https://a.b/.well-known/oauth-authorization-server/tenant1",
                "https://a.b/.well-known/openid-configuration/tenant1",
                "https://a.b/tenant1/.well-known/openid-configuration"
            ]
        );
    }
}
