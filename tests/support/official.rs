//! The official-host test path: the agent talks to `https://api.openai.com`,
//! `https://api.anthropic.com` and `https://api.deepseek.com` as in real use — its
//! official-host code (`is_official`, the key → host rule, the path mapping) runs — while
//! every byte stays on 127.0.0.1.
//!
//! How: a throw-away CA (rcgen) signs a certificate for the three names; a tiny CONNECT
//! proxy on 127.0.0.1 takes every tunnel the agent opens, records its target, ends TLS
//! with that certificate and forwards the plain HTTP to the scripted mock server, started
//! in strict mode (`BASH_AGENT_MOCK_STRICT=1`: it refuses what the real servers refuse —
//! OpenAI's and DeepSeek's rules by host, the Anthropic rules at api.anthropic.com — and
//! records which key came as `auth_tail`). A script in the object form may declare
//! `"models": [rows]` the agent's table does not know (a new release). The agent is pointed at it the way a user
//! behind a corporate proxy would be: `HTTPS_PROXY=http://127.0.0.1:P` and
//! `SSL_CERT_FILE=<the test CA>`. So the proxy and custom-roots support are tested by the
//! same path.
//!
//! Use:
//! ```ignore
//! let off = Official::start(r#"[{"text":"hi"}]"#);
//! let mut c = env.cmd();
//! off.apply(&mut c);                      // HTTPS_PROXY + SSL_CERT_FILE
//! c.env("OPENAI_API_KEY", "sk-fake-OAI1").args(["-p", "openai", "hello"]);
//! let out = c.output().unwrap();
//! for r in off.mock.requests() { /* r["headers"]["host"], r["path"], r["auth_tail"] */ }
//! assert_eq!(off.connects(), vec!["api.openai.com:443"]);
//! ```
//! Every request inside a tunnel must use the origin form as its target (checked when the
//! harness is dropped, [`Official::assert_origin_form`]).
//! A name the agent must never reach (any other host) is refused by the proxy and shows in
//! [`Official::connects`].
use super::Mock;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The hosts the test certificate is valid for.
pub const HOSTS: [&str; 3] = ["api.openai.com", "api.anthropic.com", "api.deepseek.com"];

pub struct Official {
    /// The strict mock behind the TLS end of the tunnels.
    pub mock: Mock,
    /// `http://127.0.0.1:<port>`: the CONNECT proxy.
    pub proxy_url: String,
    /// The test CA, PEM (for `SSL_CERT_FILE`).
    pub ca_file: PathBuf,
    connects: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Official {
    /// Start the strict mock with `script`, the CA and the proxy.
    pub fn start(script: &str) -> Official {
        let mock = Mock::start_env(script, &[("BASH_AGENT_MOCK_STRICT", "1")]);
        let mock_port: u16 = mock.url.rsplit(':').next().unwrap().parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (ca_pem, tls) = certificates();
        let ca_file = dir.path().join("test-ca.pem");
        std::fs::write(&ca_file, ca_pem).unwrap();
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let connects = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (c2, s2) = (connects.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (tls, c3, s3) = (tls.clone(), c2.clone(), s2.clone());
                std::thread::spawn(move || tunnel(conn, tls, mock_port, &c3, &s3));
            }
        });
        Official {
            mock,
            proxy_url: format!("http://127.0.0.1:{port}"),
            ca_file,
            connects,
            stop,
            port,
            _dir: dir,
        }
    }

    /// Point a command of the binary at the official hosts through this harness.
    pub fn apply(&self, c: &mut Command) {
        c.env("HTTPS_PROXY", &self.proxy_url)
            .env("SSL_CERT_FILE", &self.ca_file);
    }

    /// The CONNECT targets the agent asked for, in order (`host:port`, followed by
    /// ` auth=<Proxy-Authorization value>` when the proxy URL carried credentials).
    pub fn connects(&self) -> Vec<String> {
        self.connects.lock().unwrap().clone()
    }
}

impl Official {
    /// Every request that came through a tunnel used the origin form (`/path?query`) as
    /// its target, as a client talking to the origin does (RFC 9112 §3.2.1; ureq 2 sent
    /// the absolute URL, issue 42). Checked by every test of this harness when it ends.
    pub fn assert_origin_form(&self) {
        for r in self.mock.requests() {
            let t = r["target"].as_str().unwrap_or("");
            assert!(
                t.starts_with('/'),
                "request target not in origin form: {t:?}"
            );
        }
    }
}

impl Drop for Official {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.assert_origin_form();
        }
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// A CA (PEM) and a server configuration whose certificate it signed for [`HOSTS`].
fn certificates() -> (String, Arc<rustls::ServerConfig>) {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    };
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "bash-agent test CA");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf =
        CertificateParams::new(HOSTS.iter().map(|h| h.to_string()).collect::<Vec<_>>()).unwrap();
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_cert = leaf.signed_by(&leaf_key, &ca_cert, &ca_key).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(rustls::pki_types::PrivatePkcs8KeyDer::from(
        leaf_key.serialize_der(),
    ));
    let cfg = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![leaf_cert.der().clone()], key)
    .unwrap();
    (ca_cert.pem(), Arc::new(cfg))
}

/// One proxied connection: the CONNECT head, TLS with the test certificate, then bytes
/// both ways between the tunnel and the mock until either side ends.
fn tunnel(
    conn: TcpStream,
    tls: Arc<rustls::ServerConfig>,
    mock_port: u16,
    connects: &Mutex<Vec<String>>,
    stop: &AtomicBool,
) {
    let mut reader = BufReader::new(conn);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut auth = String::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("proxy-authorization") {
                auth = v.trim().to_string();
            }
        }
    }
    let mut conn = reader.into_inner();
    if method != "CONNECT" {
        let _ = conn.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
        return;
    }
    // `host:port`, and ` auth=<Proxy-Authorization>` when the agent sent one.
    let entry = if auth.is_empty() {
        target.to_string()
    } else {
        format!("{target} auth={auth}")
    };
    connects.lock().unwrap().push(entry);
    let host = target.rsplit_once(':').map_or(target, |(h, _)| h);
    let host = host.trim_end_matches('.'); // a fully qualified name is the same host
    if !HOSTS.contains(&host) {
        // Never anywhere else: the test sees the attempt in `connects`.
        let _ = conn.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
        return;
    }
    if conn
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    let Ok(server) = rustls::ServerConnection::new(tls) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(server, conn);
    while tls.conn.is_handshaking() {
        if tls.conn.complete_io(&mut tls.sock).is_err() {
            return; // e.g. the agent does not trust the CA: it aborts the handshake
        }
    }
    let Ok(mut mock) = TcpStream::connect(("127.0.0.1", mock_port)) else {
        return;
    };
    let tick = Some(Duration::from_millis(5));
    let _ = tls.sock.set_read_timeout(tick);
    let _ = mock.set_read_timeout(tick);
    let mut buf = vec![0u8; 16 * 1024];
    let idle = |e: &std::io::Error| {
        matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )
    };
    while !stop.load(Ordering::SeqCst) {
        match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if mock.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            Err(e) if idle(&e) => {}
            Err(_) => break,
        }
        match mock.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if tls.write_all(&buf[..n]).and_then(|_| tls.flush()).is_err() {
                    break;
                }
            }
            Err(e) if idle(&e) => {}
            Err(_) => break,
        }
    }
    tls.conn.send_close_notify();
    let _ = tls.flush();
}
