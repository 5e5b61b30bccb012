//! HTTPS through an HTTP proxy, with the request inside the tunnel in origin form.
//!
//! ureq 2 opens the CONNECT tunnel itself when given a proxy, but then writes the request
//! line in absolute form (`POST https://host/path`) inside the tunnel too (ureq 2.12
//! `unit.rs` `send_prelude`: the absolute form for every request through an HTTP proxy).
//! Inside a tunnel the client talks to the origin, so RFC 9112 §3.2.1 calls for the origin
//! form (`POST /path?query`), as curl and the vendors' SDKs send it; a strict origin or
//! gateway may refuse the other. So for an https URL behind an `http://` proxy ureq gets no
//! proxy at all: a [`ProxyResolver`] makes every connection go to the proxy's address and
//! remembers which `host:port` ureq meant, and [`TunnelConnector`] (ureq's TLS hook, called
//! right after on the same thread with that socket) sends `CONNECT host:port`, checks the
//! proxy's answer and then starts TLS with the shared settings. ureq, seeing no proxy,
//! writes the origin form.
use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;

/// How long the proxy may take to answer CONNECT.
const CONNECT_ANSWER: std::time::Duration = std::time::Duration::from_secs(30);

thread_local! {
    /// The `host:port` the last resolve on this thread was for (ureq resolves, connects and
    /// starts TLS in one call on one thread).
    static TARGET: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// An `http://[user:pass@]host[:port]` proxy, parsed.
#[derive(Clone)]
pub struct HttpProxy {
    /// `host:port` to connect to.
    addr: String,
    /// `Proxy-Authorization` value, when the URL carries credentials.
    auth: Option<String>,
}

impl HttpProxy {
    /// `None` for anything but a plain http proxy (SOCKS and the rest stay ureq's).
    pub fn parse(proxy: &str) -> Option<HttpProxy> {
        let with_scheme = if proxy.contains("://") {
            proxy.to_string()
        } else {
            format!("http://{proxy}")
        };
        let u = url::Url::parse(&with_scheme).ok()?;
        if u.scheme() != "http" {
            return None;
        }
        let host = u.host_str()?;
        let port = u.port().unwrap_or(80);
        let auth = (!u.username().is_empty() || u.password().is_some()).then(|| {
            use base64::Engine;
            let dec = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            let pair = format!("{}:{}", dec(u.username()), dec(u.password().unwrap_or("")));
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        });
        Some(HttpProxy {
            addr: format!("{host}:{port}"),
            auth,
        })
    }
}

/// Resolves every name to the proxy's address, noting the name for the connector.
pub struct ProxyResolver(pub HttpProxy);

impl ureq::Resolver for ProxyResolver {
    fn resolve(&self, netloc: &str) -> std::io::Result<Vec<SocketAddr>> {
        TARGET.with(|t| *t.borrow_mut() = Some(netloc.to_string()));
        Ok(self.0.addr.to_socket_addrs()?.collect())
    }
}

/// CONNECT, then TLS (ureq's own rustls connector) over the tunnel.
pub struct TunnelConnector {
    pub proxy: HttpProxy,
    pub tls: Arc<rustls::ClientConfig>,
}

/// The proxy refused the tunnel (retrying cannot help; the message says why).
#[derive(Debug)]
pub struct TunnelRefused(pub String);

impl std::fmt::Display for TunnelRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TunnelRefused {}

impl ureq::TlsConnector for TunnelConnector {
    fn connect(
        &self,
        dns_name: &str,
        mut io: Box<dyn ureq::ReadWrite>,
    ) -> Result<Box<dyn ureq::ReadWrite>, ureq::Error> {
        let target = TARGET
            .with(|t| t.borrow_mut().take())
            .unwrap_or_else(|| format!("{dns_name}:443"));
        let mut head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if let Some(a) = &self.proxy.auth {
            head.push_str(&format!("Proxy-Authorization: {a}\r\n"));
        }
        head.push_str(&format!(
            "User-Agent: {}\r\n\r\n",
            concat!("bash-agent/", env!("CARGO_PKG_VERSION"))
        ));
        io.write_all(head.as_bytes())?;
        io.flush()?;
        // A proxy that takes the connection but never answers CONNECT fails in 30 s, not
        // after the long read timeout meant for a model's first token.
        let before = io.socket().and_then(|s| s.read_timeout().ok().flatten());
        if let Some(s) = io.socket() {
            let _ = s.set_read_timeout(Some(CONNECT_ANSWER));
        }
        let answer = read_head(&mut io);
        if let Some(s) = io.socket() {
            let _ = s.set_read_timeout(before);
        }
        let answer = answer?;
        let status_line = answer.lines().next().unwrap_or("").trim().to_string();
        let code = status_line.split_whitespace().nth(1).unwrap_or("");
        if !code.starts_with('2') || code.len() != 3 {
            let why: String = status_line
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect();
            let e = TunnelRefused(format!(
                "the proxy {} refused the tunnel to {target}: {why}",
                self.proxy.addr
            ));
            return Err(std::io::Error::other(e).into());
        }
        ureq::TlsConnector::connect(&self.tls, dns_name, io)
    }
}

/// The proxy's answer head, read a byte at a time so nothing of the tunnel is consumed.
fn read_head(io: &mut Box<dyn ureq::ReadWrite>) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && !head.ends_with(b"\n\n") {
        if head.len() > 16 * 1024 {
            return Err(std::io::Error::other(
                "the proxy's answer head is over 16 KiB",
            ));
        }
        if io.read(&mut b)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the proxy closed the connection before answering CONNECT",
            ));
        }
        head.push(b[0]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// Whether a transport error is the proxy refusing the tunnel.
pub fn is_refusal(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<TunnelRefused>().is_some() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if io.get_ref().is_some_and(|i| i.is::<TunnelRefused>()) {
                return true;
            }
        }
        cur = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls() {
        let p = HttpProxy::parse("http://u%40x:p%3Aw@proxy.example:3128").unwrap();
        assert_eq!(p.addr, "proxy.example:3128");
        // base64("u@x:p:w")
        assert_eq!(p.auth.as_deref(), Some("Basic dUB4OnA6dw=="));
        let p = HttpProxy::parse("127.0.0.1:8080").unwrap();
        assert_eq!((p.addr.as_str(), p.auth), ("127.0.0.1:8080", None));
        assert_eq!(HttpProxy::parse("http://proxy").unwrap().addr, "proxy:80");
        assert!(HttpProxy::parse("socks5://127.0.0.1:1080").is_none());
    }
}
