//! The official-host path's network edges (issue 42): the request inside a CONNECT tunnel
//! uses the origin form, a proxy refusing the tunnel fails at once, `api.openai.com.`
//! (trailing dot) is OpenAI's host for the key rule, and an `SSL_CERT_FILE` without a
//! certificate is named in a warning.
use crate::support::official::Official;
use crate::support::*;

const OPENAI_KEY: &str = "sk-fake-openai-OAIK";
const ANTHROPIC_KEY: &str = "sk-fake-anthropic-ANTK";

#[test]
fn https_through_a_proxy_sends_the_origin_form_inside_the_tunnel() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"hi"}]"#);
    let mut c = env.cmd();
    off.apply(&mut c);
    let o = c
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .args(["-p", "openai", "hello"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let reqs = off.mock.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0]["target"], "/v1/chat/completions", "{}", reqs[0]);
    assert_eq!(reqs[0]["headers"]["host"], "api.openai.com");
    assert_eq!(off.connects(), vec!["api.openai.com:443"]);
    off.assert_origin_form();
}

/// Credentials in the proxy URL go to the proxy as `Proxy-Authorization: Basic`, and only
/// there (the request inside the tunnel carries none).
#[test]
fn proxy_credentials_go_to_the_proxy_only() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"hi"}]"#);
    let mut c = env.cmd();
    off.apply(&mut c);
    let with_user = off.proxy_url.replace("http://", "http://me:p%40ss@");
    let o = c
        .env("HTTPS_PROXY", &with_user)
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .args(["-p", "openai", "hello"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // base64("me:p@ss")
    assert_eq!(
        off.connects(),
        vec!["api.openai.com:443 auth=Basic bWU6cEBzcw=="]
    );
    let reqs = off.mock.requests();
    assert!(
        reqs[0]["headers"].get("proxy-authorization").is_none(),
        "{}",
        reqs[0]
    );
}

/// A tunnel the proxy refuses (403 for a host it will not reach) is not retried.
#[test]
fn a_refused_tunnel_fails_at_once() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"never"}]"#);
    let mut c = env.cmd();
    off.apply(&mut c);
    let o = c
        .args([
            "--base-url",
            "https://gateway.example.net/v1",
            "--api-key",
            "sk-x",
        ])
        .args(["-p", "openai", "hello"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("refused the tunnel"), "{}", stderr(&o));
    assert_eq!(off.connects(), vec!["gateway.example.net:443"]);
}

/// `https://api.openai.com./v1` is OpenAI's host: the OpenAI key goes there, never the
/// Anthropic one (the claude provider's own key).
#[test]
fn a_trailing_dot_host_is_still_openai() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"ok","repeat":true}]"#);
    let mut c = env.cmd();
    off.apply(&mut c);
    let o = c
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        .args(["--base-url", "https://api.openai.com./v1", "hello"])
        .output()
        .unwrap();
    let reqs = off.mock.requests();
    assert!(!reqs.is_empty(), "{}", stderr(&o));
    for r in &reqs {
        assert_eq!(r["auth_tail"], "OAIK", "{r}");
    }
}

/// `SSL_CERT_FILE` naming a file with no certificate in it: a warning that names the file
/// (the call then fails on the untrusted certificate, as without it).
#[test]
fn an_ssl_cert_file_without_a_certificate_is_named() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"never"}]"#);
    let empty = env.home.join("no-certs.pem");
    std::fs::write(&empty, "just some text, no PEM block\n").unwrap();
    let mut c = env.cmd();
    off.apply(&mut c);
    let o = c
        .env("SSL_CERT_FILE", &empty)
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .args(["-p", "openai", "hello"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains(&empty.display().to_string()), "{err}");
    assert!(err.contains("no certificate"), "{err}");
}
