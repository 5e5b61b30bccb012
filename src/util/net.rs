//! Network settings every HTTP client of the agent shares (docs/providers.md, "Network
//! settings"): which root certificates are trusted and which proxy a URL goes through.
//!
//! Roots: the bundled Mozilla set plus the platform's store, where `SSL_CERT_FILE` /
//! `SSL_CERT_DIR` replace the platform's store as they do for OpenSSL (rustls-native-certs
//! reads them). Behind a TLS-inspecting proxy the organisation's CA is in one of those, and
//! both peers (curl, the vendors' SDKs) honour the same variables. They are loaded once, on
//! the first https request: reading the system store costs milliseconds a one-shot run
//! that never calls a model should not pay (docs/performance.md).
//!
//! Proxies: `HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http ones (`ALL_PROXY` for
//! both), each also lower-case; `NO_PROXY` lists hosts that go direct. Loopback hosts
//! (a local model server, the scripted mock) always go direct.
use std::sync::{Arc, OnceLock};

/// The rustls client configuration, built on first use.
pub fn tls_config() -> Arc<rustls::ClientConfig> {
    static CFG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CFG.get_or_init(|| Arc::new(build_tls_config())).clone()
}

fn build_tls_config() -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let native = rustls_native_certs::load_native_certs();
    for e in &native.errors {
        // A named file that cannot be read is the user's to know; a missing platform
        // store is common in containers and says nothing useful.
        if std::env::var_os("SSL_CERT_FILE").is_some() || std::env::var_os("SSL_CERT_DIR").is_some()
        {
            eprintln!("bash-agent: warning: cannot load certificates: {e}");
        }
    }
    warn_if_no_certificate();
    let (_added, _ignored) = roots.add_parsable_certificates(native.certs);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    match rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
    {
        Ok(b) => b.with_root_certificates(roots).with_no_client_auth(),
        // The ring provider supports the default versions; this arm only keeps the
        // function total.
        Err(_) => rustls::ClientConfig::builder()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth(),
    }
}

/// `SSL_CERT_FILE` names a file that holds no certificate (a typo'd bundle, an empty file,
/// a key instead of a certificate): rustls-native-certs then loads nothing and says nothing,
/// and the user would only see "not trusted" later. Name the file.
fn warn_if_no_certificate() {
    let Some(file) = std::env::var_os("SSL_CERT_FILE").filter(|f| !f.is_empty()) else {
        return;
    };
    use rustls::pki_types::{pem::PemObject, CertificateDer};
    let path = std::path::Path::new(&file);
    // A file that cannot be opened is reported by rustls-native-certs' own error above.
    let Ok(certs) = CertificateDer::pem_file_iter(path) else {
        return;
    };
    if certs.filter(Result::is_ok).count() == 0 {
        let also = if std::env::var_os("SSL_CERT_DIR").is_some() {
            " and SSL_CERT_DIR's"
        } else {
            ""
        };
        eprintln!(
            "bash-agent: warning: SSL_CERT_FILE={} holds no certificate (expected PEM \
             blocks \"-----BEGIN CERTIFICATE-----\"); only the bundled roots{also} are trusted",
            path.display()
        );
    }
}

fn env_any(names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
}

/// The proxy URL for a request to `url`, `None` to go direct.
pub fn proxy_for(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    // Compared without case or a fully qualified name's trailing dot (`hosts.rs`).
    let host = u
        .host_str()?
        .trim_matches(['[', ']'])
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if is_loopback(&host) {
        return None;
    }
    if let Some(list) = env_any(&["NO_PROXY", "no_proxy"]) {
        if no_proxy_matches(&list, &host) {
            return None;
        }
    }
    match u.scheme() {
        "https" => env_any(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]),
        "http" => env_any(&["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]),
        _ => None,
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `NO_PROXY` as curl reads it: comma-separated names, each matching the host itself and
/// its subdomains (a leading dot is optional), a `:port` ignored, `*` matching everything,
/// and IP ranges (`10.0.0.0/8`, `fd00::/8`) matching an IP address host inside them.
pub fn no_proxy_matches(list: &str, host: &str) -> bool {
    list.split(',').map(str::trim).any(|e| {
        if e == "*" {
            return true;
        }
        if let Some(inside) = in_range(e, host) {
            return inside;
        }
        let e = e.trim_start_matches("*.").trim_start_matches('.');
        let e = match e.rsplit_once(':') {
            Some((h, p)) if p.chars().all(|c| c.is_ascii_digit()) && !h.contains(':') => h,
            _ => e,
        };
        let e = e
            .trim_matches(['[', ']'])
            .trim_end_matches('.')
            .to_ascii_lowercase();
        !e.is_empty() && (host == e || host.ends_with(&format!(".{e}")))
    })
}

/// For a `NO_PROXY` entry that is an IP range (`addr/bits`): whether `host` is an address
/// inside it (`None`: the entry is not a range).
fn in_range(entry: &str, host: &str) -> Option<bool> {
    use std::net::IpAddr;
    let (net, bits) = entry.split_once('/')?;
    let bits: u32 = bits.parse().ok()?;
    let net: IpAddr = net.trim_matches(['[', ']']).parse().ok()?;
    let Ok(ip) = host.trim_matches(['[', ']']).parse::<IpAddr>() else {
        return Some(false);
    };
    Some(match (net, ip) {
        (IpAddr::V4(n), IpAddr::V4(i)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(n) & mask == u32::from(i) & mask
        }
        (IpAddr::V6(n), IpAddr::V6(i)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(n) & mask == u128::from(i) & mask
        }
        _ => false,
    })
}

/// An agent builder with the proxy for `url` and, for https, the shared TLS settings. A
/// proxy URL ureq cannot use is reported once per call and left out.
pub fn configure(mut b: ureq::AgentBuilder, url: &str) -> ureq::AgentBuilder {
    let https = url.starts_with("https://");
    if https {
        b = b.tls_config(tls_config());
    }
    let proxy = proxy_for(url);
    // https behind an http proxy: our own tunnel, so the request inside it is in origin
    // form (`tunnel.rs`); SOCKS and plain-http requests stay ureq's.
    if let Some(hp) = proxy
        .as_deref()
        .filter(|_| https)
        .and_then(super::tunnel::HttpProxy::parse)
    {
        return b
            .resolver(super::tunnel::ProxyResolver(hp.clone()))
            .tls_connector(Arc::new(super::tunnel::TunnelConnector {
                proxy: hp,
                tls: tls_config(),
            }));
    }
    if let Some(p) = proxy {
        match ureq::Proxy::new(&p) {
            Ok(proxy) => b = b.proxy(proxy),
            Err(e) => eprintln!(
                "bash-agent: warning: ignoring proxy {}: {e}",
                redact_userinfo(&p)
            ),
        }
    }
    b
}

/// A proxy URL without its password, for messages.
pub fn redact_userinfo(p: &str) -> String {
    match url::Url::parse(p) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => p.to_string(),
    }
}

/// `msg` with the password of `url` (a base URL `https://user:pass@host`) taken out: the
/// `:pass@` of the URL as written, and the password itself (raw and decoded) when it is
/// long enough not to hit ordinary words.
pub fn hide_password(msg: &str, url: &str) -> String {
    let Some(pass) = url::Url::parse(url)
        .ok()
        .and_then(|u| u.password().map(str::to_string))
        .filter(|p| !p.is_empty())
    else {
        return msg.to_string();
    };
    let mut out = msg.replace(&format!(":{pass}@"), ":***@");
    let decoded = percent_encoding::percent_decode_str(&pass)
        .decode_utf8_lossy()
        .into_owned();
    for p in [pass, decoded] {
        if p.len() >= 6 {
            out = out.replace(&p, "***");
        }
    }
    out
}

/// Whether a transport error is a certificate the roots do not trust (retrying cannot help;
/// the user needs SSL_CERT_FILE).
pub fn is_certificate_error(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<rustls::Error>() {
            return matches!(r, rustls::Error::InvalidCertificate(_));
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if let Some(inner) = io.get_ref() {
                if let Some(rustls::Error::InvalidCertificate(_)) =
                    inner.downcast_ref::<rustls::Error>()
                {
                    return true;
                }
            }
        }
        cur = err.source();
    }
    false
}

/// The message for a certificate error.
pub fn certificate_hint(detail: &str) -> String {
    format!(
        "{detail}: the server's TLS certificate is not trusted. Behind a TLS-inspecting proxy, \
         set SSL_CERT_FILE to a PEM file with your organisation's CA certificate (or \
         SSL_CERT_DIR to a folder of them)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_proxy_lists() {
        assert!(no_proxy_matches("example.com", "api.example.com"));
        assert!(no_proxy_matches(" .openai.com ,x", "api.openai.com"));
        assert!(no_proxy_matches("api.openai.com:443", "api.openai.com"));
        assert!(no_proxy_matches("openai.com.", "api.openai.com"));
        assert_eq!(proxy_for("https://localhost./x"), None);
        assert!(no_proxy_matches("*", "anything"));
        assert!(!no_proxy_matches("openai.com", "api.notopenai.com"));
        assert!(!no_proxy_matches("", "a"));
        // IP ranges match IP address hosts inside them, never names.
        assert!(no_proxy_matches("10.0.0.0/8", "10.20.30.40"));
        assert!(!no_proxy_matches("10.0.0.0/8", "11.0.0.1"));
        assert!(no_proxy_matches("x, 192.168.1.0/24", "192.168.1.255"));
        assert!(!no_proxy_matches("192.168.1.0/24", "192.168.2.1"));
        assert!(no_proxy_matches("0.0.0.0/0", "8.8.8.8"));
        assert!(no_proxy_matches("fd00::/8", "[fd12::1]"));
        assert!(!no_proxy_matches("fd00::/8", "fe80::1"));
        assert!(!no_proxy_matches("10.0.0.0/8", "ten.example"));
        assert!(!no_proxy_matches("10.0.0.0/33", "10.0.0.1"));
        assert!(is_loopback("127.0.0.1") && is_loopback("::1") && is_loopback("localhost"));
        assert!(!is_loopback("10.0.0.1"));
    }

    #[test]
    fn passwords_are_hidden() {
        let url = "https://me:s3cr%21t-pw@gw.example/v1";
        let msg = format!("POST {url}/messages: refused; echo s3cr!t-pw");
        let h = hide_password(&msg, url);
        assert!(!h.contains("s3cr"), "{h}");
        assert!(h.contains("https://me:***@gw.example/v1/messages"), "{h}");
        assert_eq!(hide_password("x:a@y", "http://u:a@h/"), "x:***@y");
        assert_eq!(hide_password("plain", "http://h/"), "plain");
        assert_eq!(redact_userinfo(url), "https://me:***@gw.example/v1");
    }
}
