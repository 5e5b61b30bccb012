//! WebFetch on hostile and non-UTF-8 pages, through the real binary against a local HTTP
//! server (a std TcpListener thread on 127.0.0.1): a `<p>` with 300,000 attributes and 10 MB
//! of `<ul><li>x` (the run ends, and its peak memory from `wait4` stays a small multiple of
//! the page), bodies sent gzip- and deflate-compressed, and pages in windows-1252 and
//! Shift_JIS named by the header or by a `<meta>`.
use crate::support::checks::{assert_no_panic, output_with_peak_rss};
use crate::support::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

/// Path -> (extra header lines, body).
type Pages = HashMap<String, (String, Vec<u8>)>;

fn serve_pages(pages: Pages) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let pages = Arc::new(pages);
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(conn) = conn else { break };
            let pages = pages.clone();
            std::thread::spawn(move || serve(conn, &pages));
        }
    });
    port
}

fn serve(mut conn: TcpStream, pages: &Pages) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).unwrap_or(0) == 0 {
        return;
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
    }
    let path = first.split_whitespace().nth(1).unwrap_or("/");
    let Some((headers, body)) = pages.get(path) else {
        let _ = conn
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(body);
}

fn page(ctype: &str, body: impl Into<Vec<u8>>) -> (String, Vec<u8>) {
    (format!("Content-Type: {ctype}\r\n"), body.into())
}

fn agent(env: &Env, port: u16, paths: &[&str], sid: &str) -> Command {
    let calls: Vec<String> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(r#"{{"name": "WebFetch", "id": "w{i}", "input": {{"url": "http://127.0.0.1:{port}{p}", "prompt": "?"}}}}"#)
        })
        .collect();
    let script = format!(
        r#"[{{"tool_calls": [{}]}}, {{"text": "done", "repeat": true}}]"#,
        calls.join(",")
    );
    let mock = Mock::start(&script);
    let mut c = env.cmd();
    c.env(
        "BASH_AGENT_WEBFETCH_TIMEOUT_MS",
        ((60_000.0 * slowdown()) as u64).to_string(),
    )
    .env(
        "BASH_AGENT_WEBFETCH_MAX_BYTES",
        (16 * 1024 * 1024).to_string(),
    )
    .args(["--provider", "claude", "--base-url", &mock.base("claude")])
    .args(["--api-key", "sk-test-PLANTED", "--session", sid, "fetch"]);
    // The mock must outlive the run: it is leaked into the command's lifetime by the caller's
    // scope holding it; keep it alive by moving it into a thread-local list.
    MOCKS.with(|m| m.borrow_mut().push(mock));
    c
}

use std::process::Command;
thread_local! {
    static MOCKS: std::cell::RefCell<Vec<Mock>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn result(env: &Env, sid: &str, id: &str) -> String {
    let evs = events(&env.session_dir(sid).join("events.jsonl"));
    evs.iter()
        .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}"))["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn hostile_pages_end_in_time_within_a_small_multiple_of_their_size() {
    let mut attrs = String::from("<html><body><p");
    for i in 0..300_000 {
        attrs.push_str(&format!(" a{i}=\"v\""));
    }
    attrs.push_str(">after the attributes</p><p>the end</p></body></html>");
    let lists = "<ul><li>x".repeat(10 * 1024 * 1024 / 9) + "<p>list end</p>";
    let mut pages = Pages::new();
    pages.insert("/attrs".into(), page("text/html", attrs.clone()));
    pages.insert("/lists".into(), page("text/html", lists.clone()));
    let port = serve_pages(pages);
    let env = Env::new();
    let mut c = agent(&env, port, &["/attrs", "/lists"], "h");
    // Today's converter took minutes on the attributes (quadratic) and 765 MB on the lists.
    let (out, peak_kb) = output_with_peak_rss(&mut c, 240);
    eprintln!(
        "peak {peak_kb} KB for pages of {} and {} bytes",
        attrs.len(),
        lists.len()
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_no_panic(&stderr(&out));
    let a = result(&env, "h", "w0");
    assert!(
        a.contains("after the attributes") && a.contains("the end"),
        "{}",
        &a[..a.len().min(500)]
    );
    let l = result(&env, "h", "w1");
    assert!(l.contains("- x"), "{}", &l[..l.len().min(500)]);
    // The 10 MB page is held a few times over (bytes, text, tree, markdown), never 70 times.
    assert!(peak_kb < 200_000, "the agent peaked at {peak_kb} KB");
}

#[test]
fn compressed_bodies_and_legacy_charsets_come_out_as_text() {
    use flate2::write::{GzEncoder, ZlibEncoder};
    let html = "<html><body><h1>Packed Title</h1><p>squeezed text</p></body></html>";
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(html.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let mut zl = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    zl.write_all(html.as_bytes()).unwrap();
    let zl = zl.finish().unwrap();
    // A gzip bomb: 64 MB of zeros in about 64 KB, past the 16 MB cap.
    let mut bomb = GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..64 {
        bomb.write_all(&zeros).unwrap();
    }
    let bomb = bomb.finish().unwrap();
    let mut pages = Pages::new();
    let enc = |ctype: &str, coding: &str, body: Vec<u8>| {
        (
            format!("Content-Type: {ctype}\r\nContent-Encoding: {coding}\r\n"),
            body,
        )
    };
    pages.insert("/gzip".into(), enc("text/html", "gzip", gz));
    pages.insert("/deflate".into(), enc("text/html", "deflate", zl));
    pages.insert("/bomb".into(), enc("text/plain", "gzip", bomb));
    // "Café – “naïve” €5" in windows-1252, named by the header.
    pages.insert(
        "/cp1252".into(),
        page(
            "text/html; charset=windows-1252",
            b"<p>Caf\xe9 \x96 \x93na\xefve\x94 \x805</p>".to_vec(),
        ),
    );
    // "日本語のページ" in Shift_JIS, named by a <meta> only, and by the header only.
    let sjis: &[u8] = b"\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x79\x81\x5b\x83\x57";
    let mut meta = b"<html><head><meta charset=\"Shift_JIS\"></head><body><p>".to_vec();
    meta.extend_from_slice(sjis);
    meta.extend_from_slice(b"</p></body></html>");
    pages.insert("/sjis-meta".into(), page("text/html", meta));
    let mut plain = b"<p>".to_vec();
    plain.extend_from_slice(sjis);
    pages.insert("/sjis".into(), page("text/html; charset=Shift_JIS", plain));
    let port = serve_pages(pages);
    let env = Env::new();
    let paths = [
        "/gzip",
        "/deflate",
        "/bomb",
        "/cp1252",
        "/sjis-meta",
        "/sjis",
    ];
    let (out, _) = output_with_peak_rss(&mut agent(&env, port, &paths, "c"), 120);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = |i: usize| result(&env, "c", &format!("w{i}"));
    for i in [0, 1] {
        assert!(
            r(i).contains("# Packed Title") && r(i).contains("squeezed text"),
            "{}",
            r(i)
        );
    }
    assert!(
        r(2).contains("size cap"),
        "{}",
        &r(2)[..r(2).len().min(400)]
    );
    assert!(r(3).contains("Café – “naïve” €5"), "{}", r(3));
    assert!(r(4).contains("日本語のページ"), "{}", r(4));
    assert!(r(5).contains("日本語のページ"), "{}", r(5));
}
