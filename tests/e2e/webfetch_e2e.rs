//! WebFetch through the real binary: the scripted model calls it against a local HTTP server
//! (a std TcpListener thread on 127.0.0.1) that serves HTML, a redirect loop, a redirect to
//! another host, a 50 MB body (capped: the server never gets to write it all), a stall (the
//! time limit ends the call) and an echo of the request headers (no secret is sent).
//! `--no-network` and deny rules refuse it before any connection.
use crate::support::checks::assert_no_panic;
use crate::support::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

const BIG: usize = 50 * 1024 * 1024;

/// What the server saw.
#[derive(Default)]
struct Seen {
    connections: AtomicUsize,
    big_started: AtomicBool,
    big_ended: AtomicBool,
    big_complete: AtomicBool,
}

struct Server {
    port: u16,
    seen: Arc<Seen>,
}

impl Server {
    fn start() -> Server {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let seen = Arc::new(Seen::default());
        let s = seen.clone();
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(conn) = conn else { break };
                s.connections.fetch_add(1, Ordering::SeqCst);
                let s = s.clone();
                std::thread::spawn(move || serve(conn, port, &s));
            }
        });
        Server { port, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn head(status: &str, extra: &str, len: usize, ctype: &str) -> String {
    format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len}\r\n{extra}Connection: close\r\n\r\n")
}

fn serve(mut conn: TcpStream, port: u16, seen: &Seen) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut request = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let end = line == "\r\n";
        request.push_str(&line);
        if end {
            break;
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
    let page = "<!doctype html><html><head><title>T</title><script>var secret=1;</script></head>\
                <body><h1>Fetched Title</h1><p>Some <b>bold</b> text and a <a href=\"/next\">link</a>.</p>\
                <ul><li>item one</li></ul></body></html>";
    let redirect = |to: &str| head("302 Found", &format!("Location: {to}\r\n"), 0, "text/plain");
    let reply = match path.as_str() {
        "/page" => head("200 OK", "", page.len(), "text/html; charset=utf-8") + page,
        "/hop" => redirect("/page"),
        "/loop-a" => redirect("/loop-b"),
        "/loop-b" => redirect("/loop-a"),
        "/away" => redirect(&format!("http://localhost:{port}/page")),
        "/headers" => {
            let body = request.clone();
            head("200 OK", "", body.len(), "text/plain") + &body
        }
        "/image" => head("200 OK", "", 4, "image/png") + "\u{89}PNG",
        "/long" => {
            let body: String = (1..=4000)
                .map(|i| format!("<p>paragraph number {i} of a long article</p>"))
                .collect();
            let page = format!("<!doctype html><h1>Long</h1>{body}<p>THE END</p>");
            head("200 OK", "", page.len(), "text/html") + &page
        }
        "/big" => {
            seen.big_started.store(true, Ordering::SeqCst);
            let complete = conn
                .write_all(head("200 OK", "", BIG, "text/plain").as_bytes())
                .is_ok()
                && {
                    let chunk = vec![b'x'; 64 * 1024];
                    let mut sent = 0;
                    while sent < BIG {
                        if conn.write_all(&chunk).is_err() {
                            break;
                        }
                        sent += chunk.len();
                    }
                    sent >= BIG
                };
            seen.big_complete.store(complete, Ordering::SeqCst);
            seen.big_ended.store(true, Ordering::SeqCst);
            return;
        }
        "/stall" => {
            // Headers, then nothing until the client gives up and closes.
            let _ = conn.write_all(head("200 OK", "", 1000, "text/html").as_bytes());
            let mut buf = [0u8; 64];
            while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
            return;
        }
        _ => head("404 Not Found", "", 0, "text/plain"),
    };
    let _ = conn.write_all(reply.as_bytes());
}

fn call(id: &str, url: &str) -> String {
    format!(
        r#"{{"name": "WebFetch", "id": "{id}", "input": {{"url": "{url}", "prompt": "what does it say?"}}}}"#
    )
}

fn script(calls: &[String]) -> String {
    format!(
        r#"[{{"tool_calls": [{}], "usage": {{"input": 10, "output": 5}}}},
            {{"text": "done", "repeat": true, "usage": {{"input": 1, "output": 1}}}}]"#,
        calls.join(",")
    )
}

fn results(env: &Env, sid: &str) -> impl Fn(&str) -> String {
    let evs = events(&env.session_dir(sid).join("events.jsonl"));
    move |id: &str| {
        evs.iter()
            .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))["content"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

fn run_agent(env: &Env, mock: &Mock, extra: &[&str]) -> std::process::Output {
    let limit_ms = (2000.0 * slowdown()) as u64;
    let mut c = env.cmd();
    c.env("BASH_AGENT_WEBFETCH_TIMEOUT_MS", limit_ms.to_string())
        .env("BASH_AGENT_WEBFETCH_MAX_BYTES", (1024 * 1024).to_string())
        .args([
            "--provider",
            "claude",
            "--base-url",
            &mock.base("claude"),
            "--api-key",
            "sk-test-PLANTED",
        ])
        .args(extra);
    c.output().unwrap()
}

#[test]
fn webfetch_against_a_local_server() {
    let env = Env::new();
    let srv = Server::start();
    let ids = [
        ("w1", "/page"),
        ("w2", "/hop"),
        ("w3", "/loop-a"),
        ("w4", "/away"),
        ("w5", "/big"),
        ("w6", "/stall"),
        ("w7", "/headers"),
        ("w8", "/image"),
        ("w9", "/missing"),
    ];
    let calls: Vec<String> = ids.iter().map(|(i, p)| call(i, &srv.url(p))).collect();
    let mock = Mock::start(&script(&calls));
    let out = run_agent(&env, &mock, &["--session", "w", "fetch things"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_no_panic(&stderr(&out));
    let r = results(&env, "w");

    let page = r("w1");
    assert!(
        page.contains(&format!("URL: {}", srv.url("/page"))),
        "{page}"
    );
    assert!(page.contains("# Fetched Title"), "{page}");
    assert!(page.contains("Some **bold** text"), "{page}");
    assert!(
        page.contains(&format!("[link]({})", srv.url("/next"))),
        "{page}"
    );
    assert!(page.contains("Prompt: what does it say?"), "{page}");
    assert!(!page.contains("var secret"), "{page}");

    assert!(r("w2").contains("# Fetched Title"), "{}", r("w2"));
    assert!(r("w2").contains(&format!("URL: {}", srv.url("/page"))));

    let lp = r("w3");
    assert!(lp.starts_with("Error: redirect loop: "), "{lp}");
    assert!(lp.contains("/loop-a -> ") && lp.contains("/loop-b"), "{lp}");

    let away = r("w4");
    assert!(away.contains("REDIRECT DETECTED"), "{away}");
    assert!(
        away.contains(&format!("Redirect URL: http://localhost:{}/page", srv.port)),
        "{away}"
    );

    let big = r("w5");
    assert!(big.contains("size cap"), "{}", &big[..big.len().min(400)]);
    assert!(big.len() < 2 * 1024 * 1024, "{}", big.len());
    wait_until("the big body's writer ends", 30, || {
        srv.seen.big_ended.load(Ordering::SeqCst)
    });
    assert!(srv.seen.big_started.load(Ordering::SeqCst));
    assert!(
        !srv.seen.big_complete.load(Ordering::SeqCst),
        "the whole 50 MB was read"
    );

    let stall = r("w6");
    assert!(stall.starts_with("Error: "), "{stall}");
    assert!(stall.contains("time limit"), "{stall}");

    let hdrs = r("w7").to_lowercase();
    assert!(hdrs.contains("user-agent: bash-agent/"), "{hdrs}");
    assert!(!hdrs.contains("sk-test-planted"), "{hdrs}");
    assert!(!hdrs.contains("authorization"), "{hdrs}");
    assert!(!hdrs.contains("cookie"), "{hdrs}");
    assert!(!hdrs.contains("x-api-key"), "{hdrs}");

    assert!(r("w8").contains("is not a text page"), "{}", r("w8"));
    assert!(r("w9").starts_with("Error: HTTP 404"), "{}", r("w9"));
    let conv = env.read("w", "conversation.jsonl");
    assert!(!conv.contains("sk-test-PLANTED"));
}

#[test]
fn webfetch_refused_without_network_and_by_deny_rules() {
    let env = Env::new();
    let srv = Server::start();
    let calls = [call("n1", &srv.url("/page"))];
    let mock = Mock::start(&script(&calls));
    let out = run_agent(&env, &mock, &["--session", "n", "--no-network", "fetch"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = results(&env, "n");
    assert!(r("n1").contains("--no-network"), "{}", r("n1"));

    let mock = Mock::start(&script(&calls));
    let out = run_agent(
        &env,
        &mock,
        &[
            "--session",
            "d",
            "--deny",
            "WebFetch(domain:127.0.0.1)",
            "fetch",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = results(&env, "d");
    assert!(
        r("n1").contains("denied by the rule WebFetch(domain:127.0.0.1)"),
        "{}",
        r("n1")
    );
    // Neither run reached the server.
    assert_eq!(srv.seen.connections.load(Ordering::SeqCst), 0);

    // An allow rule for another domain does not cover it; headless default mode refuses
    // (it cannot ask) and says how to allow it.
    let mock = Mock::start(&script(&calls));
    let out = run_agent(
        &env,
        &mock,
        &[
            "--session",
            "a",
            "--permission-mode",
            "default",
            "--allow",
            "WebFetch(domain:example.com)",
            "fetch",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let r = results(&env, "a");
    assert!(
        r("n1").contains("WebFetch(domain:127.0.0.1)"),
        "{}",
        r("n1")
    );
    assert_eq!(srv.seen.connections.load(Ordering::SeqCst), 0);
}

#[test]
fn webfetch_from_the_tool_command() {
    let env = Env::new();
    let srv = Server::start();
    let input = format!(r#"{{"url": "{}"}}"#, srv.url("/page"));
    let out = env.run(&["tool", "WebFetch", &input]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("# Fetched Title"), "{}", stdout(&out));
    let out = env.run(&["tool", "WebFetch", r#"{"url": "file:///etc/passwd"}"#]);
    expect_code(&out, 1);
    assert!(
        stdout(&out).contains("unsupported url scheme"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_page_over_the_result_cap_is_saved_whole_for_read() {
    let env = Env::new();
    let srv = Server::start();
    let input = format!(r#"{{"url": "{}"}}"#, srv.url("/long"));
    let out = env
        .cmd()
        .args(["tool", "WebFetch", &input])
        .env("TOOL_RESULT_MAX_BYTES", "20000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("# Long") && !text.contains("THE END"),
        "{text}"
    );
    let path = text
        .split("The whole text is saved in ")
        .nth(1)
        .and_then(|r| r.split(": read on with Read").next())
        .unwrap_or_else(|| panic!("no saved path in {text}"));
    let offset = text
        .split("offset=")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap();
    // Read reaches the file and reads on from the offset the note gives.
    let read = env.run(&[
        "tool",
        "Read",
        &format!(r#"{{"path": "{path}", "offset": {offset}, "limit": 3}}"#),
    ]);
    assert!(read.status.success(), "{} {}", stdout(&read), stderr(&read));
    let next = stdout(&read);
    assert!(next.contains("paragraph number"), "{next}");
    let whole = std::fs::read_to_string(path).unwrap();
    assert!(
        whole.ends_with("THE END"),
        "{}",
        &whole[whole.len() - 100..]
    );
    // `tool` keeps only the saved page of its throw-away folder (bash-agent-tool-*/tool/webfetch).
    let folder = std::path::Path::new(path).ancestors().nth(3).unwrap();
    assert!(folder
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("bash-agent-tool-"));
    std::fs::remove_dir_all(folder).unwrap();
}
