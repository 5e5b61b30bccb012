//! Issue 33 item 8 through the real binary: `--deny 'WebFetch(http://127.0.0.1:P/secret/*)'`
//! refuses every spelling of that URL (dot segments, scheme case, a trailing-dot host,
//! numeric hosts, needless and path-separator escapes) and a same-host redirect into it; a
//! hop outside the allow rule that let a call through goes back to the model. A local
//! listener records every request: it never sees a secret path. The project is a real
//! `git init` folder with a key planted in the environment (helpers in trust_paths.rs).
use crate::support::checks::assert_no_panic;
use crate::support::*;
use crate::trust_paths::{agent, clone_project, sent, tool_result, PLANTED_ENV};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// The local listener: serves `/public`, `/secret/...` and `/hop` (a 302 to
/// `/secret/key`), and records the request line of every hit.
struct Listener {
    port: u16,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Listener {
    fn start() -> Listener {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let h = hits.clone();
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(conn) = conn else { break };
                let h = h.clone();
                std::thread::spawn(move || serve(conn, &h));
            }
        });
        Listener { port, hits }
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

fn serve(mut conn: TcpStream, hits: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut request = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        request.push_str(&line);
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
    hits.lock().unwrap().push(request.clone());
    let (status, extra, body) = if path == "/hop" {
        ("302 Found", "Location: /secret/key\r\n", String::new())
    } else if path == "/public" {
        ("200 OK", "", "PUBLIC-PAGE-BODY".to_string())
    } else if path.to_ascii_lowercase().contains("secret") {
        ("200 OK", "", "SECRET-PAGE-BODY".to_string())
    } else {
        ("404 Not Found", "", String::new())
    };
    let _ = conn.write_all(
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
}

#[test]
fn url_rules_match_every_spelling_and_every_redirect_hop() {
    let env = Env::new();
    clone_project(&env, &[("README.md", "a project\n")]);
    let srv = Listener::start();
    let p = srv.port;
    let urls = [
        ("s1", format!("http://127.0.0.1:{p}/secret/key")),
        ("s2", format!("http://127.0.0.1:{p}/x/../secret/key")),
        ("s3", format!("HTTP://127.0.0.1:{p}/secret/key")),
        ("s4", format!("http://127.0.0.1.:{p}/secret/key")),
        ("s5", format!("http://0x7f.0.0.1:{p}/secret/key")),
        ("s6", format!("http://2130706433:{p}/secret/key")),
        ("s7", format!("http://127.0.0.1:{p}/%73ecret/key")),
        ("s8", format!("http://127.0.0.1:{p}/secret%2Fkey")),
        ("hop", format!("http://127.0.0.1:{p}/hop")),
        ("pub", format!("http://127.0.0.1:{p}/public")),
    ];
    let calls: Vec<serde_json::Value> = urls
        .iter()
        .map(|(id, u)| {
            serde_json::json!({"name": "WebFetch", "id": id, "input": {"url": u, "prompt": "read it"}})
        })
        .collect();
    let script = serde_json::json!([
        {"tool_calls": calls, "usage": {"input": 10, "output": 5}},
        {"text": "done", "repeat": true, "usage": {"input": 1, "output": 1}}
    ]);
    let mock = Mock::start(&script.to_string());
    let rule = format!("WebFetch(http://127.0.0.1:{p}/secret/*)");
    let out = agent(&env, &mock, &["--session", "u", "--deny", &rule, "fetch"]);
    expect_code(&out, 0);
    assert_no_panic(&stderr(&out));
    for (id, u) in &urls[..8] {
        let r = tool_result(&env, "u", id);
        assert!(
            r.contains(&format!("denied by the rule {rule}")),
            "{u}: {r}"
        );
    }
    let hop = tool_result(&env, "u", "hop");
    assert!(hop.starts_with("Error: the redirect from"), "{hop}");
    assert!(hop.contains(&format!("denied by the rule {rule}")), "{hop}");
    assert!(tool_result(&env, "u", "pub").contains("PUBLIC-PAGE-BODY"));
    // What reached the listener: /hop and /public, never a secret path.
    let hits = srv.hits();
    let lines: Vec<&str> = hits
        .iter()
        .map(|h| h.lines().next().unwrap_or(""))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| !l.to_ascii_lowercase().contains("secret")),
        "{lines:?}"
    );
    assert!(!hits
        .iter()
        .any(|h| h.contains(PLANTED_ENV) || h.contains("sk-test-PLANTED")));
    let all = sent(&mock);
    assert!(!all.contains("SECRET-PAGE-BODY"));
    assert!(!all.contains(PLANTED_ENV));

    // An allow rule that let the start through does not cover a hop outside it: the hop
    // goes back to the model (a headless default run could not ask about it).
    let mock = Mock::start(&serde_json::json!([
        {"tool_calls": [{"name": "WebFetch", "id": "h2", "input": {"url": format!("http://127.0.0.1:{p}/hop")}}]},
        {"text": "done", "repeat": true}
    ])
    .to_string());
    let allow = format!("WebFetch(http://127.0.0.1:{p}/hop)");
    let out = agent(
        &env,
        &mock,
        &[
            "--session",
            "h",
            "--permission-mode",
            "default",
            "--allow",
            &allow,
            "fetch",
        ],
    );
    expect_code(&out, 0);
    let r = tool_result(&env, "h", "h2");
    assert!(r.contains("REDIRECT DETECTED"), "{r}");
    assert!(
        r.contains(&format!("Redirect URL: http://127.0.0.1:{p}/secret/key")),
        "{r}"
    );
    assert_eq!(srv.hits().len(), 3, "{:?}", srv.hits());
    assert!(!sent(&mock).contains("SECRET-PAGE-BODY"));
}
