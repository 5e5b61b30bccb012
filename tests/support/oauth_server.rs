//! A local OAuth-protected MCP server for the sign-in tests: one HTTP server on 127.0.0.1
//! that is both the MCP server (`/mcp`, a 401 with `resource_metadata` until a valid bearer
//! token comes; one tool, `whoami`) and its authorization server (protected-resource and
//! RFC 8414 metadata, dynamic registration, `/authorize` answering at once with a redirect
//! as a browser session already signed in would, `/token` checking the PKCE verifier, the
//! resource indicator and the refresh token). Every request is recorded for the asserts.
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct Seen {
    /// "METHOD path" of every request, in order.
    pub requests: Vec<String>,
    /// The query of each `/authorize`.
    pub authorize: Vec<HashMap<String, String>>,
    /// The form of each `/token` request.
    pub token: Vec<HashMap<String, String>>,
    /// Access tokens handed out.
    pub issued: Vec<String>,
    challenge: Option<String>,
}

pub struct OAuthServer {
    pub url: String,
    pub seen: Arc<Mutex<Seen>>,
}

impl OAuthServer {
    pub fn start() -> OAuthServer {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
        let seen = Arc::new(Mutex::new(Seen::default()));
        let (s, base) = (seen.clone(), url.clone());
        // The thread ends with the test process (it only ever serves this test).
        std::thread::spawn(move || {
            for c in l.incoming().flatten() {
                let (s, base) = (s.clone(), base.clone());
                std::thread::spawn(move || serve(c, &s, &base));
            }
        });
        OAuthServer { url, seen }
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.url)
    }
}

fn form(s: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(s.as_bytes())
        .into_owned()
        .collect()
}

fn respond(mut c: &TcpStream, status: &str, headers: &[(&str, String)], body: &str) {
    let mut h = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    let _ = c.write_all(format!("{h}\r\n{body}").as_bytes());
}

fn serve(c: TcpStream, seen: &Mutex<Seen>, base: &str) {
    let mut r = BufReader::new(&c);
    let mut line = String::new();
    if r.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or("").to_string(),
        parts.next().unwrap_or("").to_string(),
    );
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let n: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; n];
    let _ = r.read_exact(&mut body);
    let body = String::from_utf8_lossy(&body).into_owned();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    seen.lock()
        .unwrap()
        .requests
        .push(format!("{method} {path}"));
    let json_h = vec![("Content-Type", "application/json".to_string())];
    match (method.as_str(), path) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => respond(&c, "200 OK", &json_h,
            &json!({"resource": format!("{base}/mcp"), "authorization_servers": [base], "scopes_supported": ["mcp:tools"]}).to_string()),
        ("GET", "/.well-known/oauth-authorization-server") => respond(&c, "200 OK", &json_h, &json!({
            "issuer": base, "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"), "registration_endpoint": format!("{base}/register"),
            "response_types_supported": ["code"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["client_secret_post"],
        }).to_string()),
        ("POST", "/register") => respond(&c, "201 Created", &json_h,
            &json!({"client_id": "local-client", "client_secret": "local-secret-SHHH", "token_endpoint_auth_method": "client_secret_post"}).to_string()),
        ("GET", "/authorize") => {
            let q = form(query);
            let mut s = seen.lock().unwrap();
            s.challenge = q.get("code_challenge").cloned();
            s.authorize.push(q.clone());
            let mut to = url::Url::parse(q.get("redirect_uri").map(String::as_str).unwrap_or("http://127.0.0.1:9/")).unwrap();
            to.query_pairs_mut().append_pair("code", "the-code").append_pair("state", q.get("state").map(String::as_str).unwrap_or(""));
            respond(&c, "302 Found", &[("Location", to.to_string())], "");
        }
        ("POST", "/token") => {
            let f = form(&body);
            let mut s = seen.lock().unwrap();
            s.token.push(f.clone());
            let ok = match f.get("grant_type").map(String::as_str) {
                Some("authorization_code") => {
                    let v = f.get("code_verifier").cloned().unwrap_or_default();
                    let c = oauth2::PkceCodeChallenge::from_code_verifier_sha256(&oauth2::PkceCodeVerifier::new(v));
                    f.get("code").map(String::as_str) == Some("the-code") && s.challenge.as_deref() == Some(c.as_str())
                }
                Some("refresh_token") => f.get("refresh_token").map(String::as_str) == Some("rt-1"),
                _ => false,
            } && f.get("client_secret").map(String::as_str) == Some("local-secret-SHHH")
                && f.get("resource").map(String::as_str) == Some(&format!("{base}/mcp"));
            if !ok {
                return respond(&c, "400 Bad Request", &json_h, r#"{"error":"invalid_grant"}"#);
            }
            let token = format!("at-SECRET-{}", s.issued.len() + 1);
            s.issued.push(token.clone());
            respond(&c, "200 OK", &json_h, &json!({"access_token": token, "token_type": "Bearer",
                "expires_in": 3600, "refresh_token": "rt-1", "scope": "mcp:tools"}).to_string());
        }
        ("POST", "/mcp") => {
            let auth = headers.get("authorization").cloned().unwrap_or_default();
            let valid = seen.lock().unwrap().issued.iter().any(|t| auth == format!("Bearer {t}"));
            if !valid {
                let www = format!(r#"Bearer error="invalid_token", resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#);
                return respond(&c, "401 Unauthorized", &[("WWW-Authenticate", www)], r#"{"error":"invalid_token"}"#);
            }
            let m: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let Some(id) = m.get("id").cloned() else {
                return respond(&c, "202 Accepted", &[], "");
            };
            let result = match m["method"].as_str().unwrap_or("") {
                "initialize" => json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "local", "version": "1"}}),
                "tools/list" => json!({"tools": [{"name": "whoami", "description": "Who is signed in", "inputSchema": {"type": "object"}}]}),
                "tools/call" => json!({"content": [{"type": "text", "text": "hello tester, you are signed in"}]}),
                _ => json!({}),
            };
            respond(&c, "200 OK", &json_h, &json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string());
        }
        _ => respond(&c, "404 Not Found", &[], "not found"),
    }
}
