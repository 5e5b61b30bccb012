//! The HTTP every sign-in step uses: our ureq agent (the same TLS roots and proxies as the
//! rest of the agent), https only except for loopback hosts, no redirects followed (a
//! metadata, registration or token endpoint that redirects elsewhere is an error, so a
//! secret in a request body never reaches another host), every wait bounded, every answer
//! size-capped. `Http` is the `oauth2` crate's `SyncHttpClient` over it.
use oauth2::http;
use serde_json::Value;
use std::io::Read;
use std::time::Duration;

/// One request's whole time, and the cap on what an answer may hold.
pub const TIMEOUT: Duration = Duration::from_secs(20);
const MAX_BODY: u64 = 1 << 20;

/// `https://`, or `http://` to a loopback host; anything else is refused.
pub fn check_url(u: &str) -> Result<url::Url, String> {
    let p = url::Url::parse(u).map_err(|e| format!("bad URL {u:?}: {e}"))?;
    match p.scheme() {
        "https" => Ok(p),
        "http" if is_loopback(&p) => Ok(p),
        "http" => Err(format!(
            "refusing plain http for {u} (only https, or http to 127.0.0.1/localhost)"
        )),
        s => Err(format!("refusing the {s}: URL {u}")),
    }
}

pub fn is_loopback(u: &url::Url) -> bool {
    match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn agent(url: &str, timeout: Duration) -> ureq::Agent {
    crate::util::net::configure(
        ureq::AgentBuilder::new()
            .redirects(0)
            .timeout_connect(timeout.min(Duration::from_secs(10)))
            .timeout(timeout),
        url,
    )
    .build()
}

/// What came back: status, headers we look at, body (capped).
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
    pub content_type: String,
}

/// One request; a 3xx is returned like any other status (never followed).
pub fn call(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Result<Answer, String> {
    call_within(method, url, headers, body, TIMEOUT)
}

/// [`call`] with its own bound on the whole request.
pub fn call_within(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
    timeout: Duration,
) -> Result<Answer, String> {
    check_url(url)?;
    let mut r = agent(url, timeout).request(method, url);
    for (k, v) in headers {
        r = r.set(k, v);
    }
    let resp = match body {
        Some(b) => r.send_bytes(b),
        None => r.call(),
    };
    let resp = match resp {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(ureq::Error::Transport(t)) => return Err(format!("cannot reach {url}: {t}")),
    };
    let status = resp.status();
    let content_type = resp.content_type().to_string();
    let mut body = Vec::new();
    resp.into_reader()
        .take(MAX_BODY + 1)
        .read_to_end(&mut body)
        .map_err(|e| format!("reading the answer of {url}: {e}"))?;
    if body.len() as u64 > MAX_BODY {
        return Err(format!("the answer of {url} is larger than 1 MiB"));
    }
    Ok(Answer {
        status,
        body,
        content_type,
    })
}

/// GET a JSON document: `Ok(None)` for a 4xx (absent), an error for anything odd.
pub fn get_json(url: &str) -> Result<Option<Value>, String> {
    let a = call(
        "GET",
        url,
        &[
            ("Accept", "application/json"),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        None,
    )?;
    match a.status {
        200 => serde_json::from_slice(&a.body)
            .map(Some)
            .map_err(|e| format!("{url} did not answer JSON: {e}")),
        300..=399 => Err(format!(
            "{url} redirected elsewhere; redirects are not followed"
        )),
        400..=499 => Ok(None),
        s => Err(format!("{url} answered HTTP {s}")),
    }
}

/// POST JSON, expecting a JSON object back (dynamic registration).
pub fn post_json(url: &str, body: &Value) -> Result<Value, String> {
    let a = call(
        "POST",
        url,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ],
        Some(body.to_string().as_bytes()),
    )?;
    if !(200..300).contains(&a.status) {
        let text: String = String::from_utf8_lossy(&a.body).chars().take(200).collect();
        return Err(format!("{url} answered HTTP {}: {}", a.status, text.trim()));
    }
    serde_json::from_slice(&a.body).map_err(|e| format!("{url} did not answer JSON: {e}"))
}

/// The `oauth2` crate's requests (token endpoint) through [`call`].
pub struct Http;

#[derive(Debug)]
pub struct NetError(pub String);
impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for NetError {}

impl oauth2::SyncHttpClient for Http {
    type Error = NetError;
    fn call(&self, req: oauth2::HttpRequest) -> Result<oauth2::HttpResponse, NetError> {
        let url = req.uri().to_string();
        let headers: Vec<(String, String)> = req
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let hs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let a = call(req.method().as_str(), &url, &hs, Some(req.body())).map_err(NetError)?;
        if (300..400).contains(&a.status) {
            return Err(NetError(format!(
                "{url} redirected elsewhere; redirects are not followed"
            )));
        }
        let mut b = http::Response::builder().status(a.status);
        if !a.content_type.is_empty() {
            b = b.header(http::header::CONTENT_TYPE, a.content_type);
        }
        b.body(a.body).map_err(|e| NetError(e.to_string()))
    }
}
