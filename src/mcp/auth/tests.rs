//! Hostile and broken peers: a forged redirect, an endpoint that redirects to another origin,
//! one that never answers, plain http to another host. Real sockets on 127.0.0.1.
use super::{loopback, net};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A server answering every connection with `answer`; counts the connections.
fn server(answer: String) -> (String, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}", l.local_addr().unwrap().port());
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            h.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            if answer.is_empty() {
                std::thread::sleep(Duration::from_secs(30));
            }
            let _ = c.write_all(answer.as_bytes());
        }
    });
    (url, hits)
}

#[test]
fn a_forged_state_is_refused_and_the_listener_closes() {
    let l = loopback::Listener::bind(0).unwrap();
    let port = l.port;
    let t = std::thread::spawn(move || l.wait("right-state", Duration::from_secs(10)));
    let url = format!("http://127.0.0.1:{port}/callback?code=c&state=wrong");
    let got = ureq::get(&url).call();
    assert!(matches!(got, Err(ureq::Error::Status(400, _))));
    let err = t.join().unwrap().unwrap_err();
    assert!(err.contains("state did not match"), "{err}");
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn the_right_state_gives_the_code_and_other_paths_are_404() {
    let l = loopback::Listener::bind(0).unwrap();
    let port = l.port;
    let t = std::thread::spawn(move || l.wait("s1", Duration::from_secs(10)));
    let fav = ureq::get(&format!("http://127.0.0.1:{port}/favicon.ico")).call();
    assert!(matches!(fav, Err(ureq::Error::Status(404, _))));
    let ok = ureq::get(&format!(
        "http://127.0.0.1:{port}/callback?code=abc&state=s1"
    ))
    .call();
    assert!(ok.is_ok());
    assert_eq!(t.join().unwrap().unwrap(), "abc");
}

#[test]
fn a_redirect_to_another_origin_is_not_followed() {
    let (elsewhere, hits) = server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".into());
    let (evil, _) = server(format!(
        "HTTP/1.1 302 Found\r\nLocation: {elsewhere}/token\r\nContent-Length: 0\r\n\r\n"
    ));
    let err = net::get_json(&format!("{evil}/.well-known/oauth-authorization-server")).unwrap_err();
    assert!(err.contains("redirect"), "{err}");
    // The token request (with its secret in the body) is not sent on either.
    let req = oauth2::http::Request::builder()
        .method("POST")
        .uri(format!("{evil}/token"))
        .body(b"client_secret=s3cret".to_vec())
        .unwrap();
    let e = oauth2::SyncHttpClient::call(&net::Http, req).unwrap_err();
    assert!(e.0.contains("redirect"), "{}", e.0);
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

#[test]
fn an_endpoint_that_never_answers_is_a_bounded_wait() {
    let (hang, _) = server(String::new());
    let t0 = Instant::now();
    let err = net::call_within(
        "POST",
        &format!("{hang}/token"),
        &[],
        Some(b"x"),
        Duration::from_secs(1),
    )
    .err()
    .unwrap_or_default();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(
        err.contains("cannot reach") || err.contains("reading"),
        "{err}"
    );
}

#[test]
fn plain_http_only_to_loopback() {
    assert!(net::check_url("http://127.0.0.1:9/x").is_ok());
    assert!(net::check_url("http://localhost/x").is_ok());
    assert!(net::check_url("http://[::1]:1/").is_ok());
    assert!(net::check_url("https://example.com/").is_ok());
    let e = net::check_url("http://example.com/token").unwrap_err();
    assert!(e.contains("refusing plain http"), "{e}");
    assert!(net::check_url("file:///etc/passwd").is_err());
}

#[test]
fn silent_connections_do_not_extend_the_browser_wait() {
    let l = loopback::Listener::bind(0).unwrap();
    let port = l.port;
    let stop = Arc::new(AtomicUsize::new(0));
    let s = stop.clone();
    // A local peer that keeps connecting and never sends a request line.
    let peer = std::thread::spawn(move || {
        let mut held = Vec::new();
        let end = Instant::now() + Duration::from_secs(20);
        while s.load(Ordering::SeqCst) == 0 && Instant::now() < end {
            if let Ok(c) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                held.push(c);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let t0 = Instant::now();
    let err = l.wait("state", Duration::from_secs(1)).unwrap_err();
    let took = t0.elapsed();
    stop.store(1, Ordering::SeqCst);
    peer.join().unwrap();
    assert!(err.contains("within 1 s"), "{err}");
    assert!(took < Duration::from_secs(8), "waited {took:?}");
}
