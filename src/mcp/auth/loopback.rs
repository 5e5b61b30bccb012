//! The browser half of the authorization-code flow: a listener on 127.0.0.1 (never another
//! interface) for the redirect, the user's browser (`$BROWSER`, else `xdg-open` with a
//! display) opened on the authorization URL, and the URL printed in any case, so a person
//! on SSH can open it elsewhere. The listener answers one callback and closes; the `state`
//! must match; the wait is bounded.
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A bound redirect listener.
pub struct Listener {
    l: TcpListener,
    pub port: u16,
}

impl Listener {
    /// Bind 127.0.0.1 on `port` (0 = any free one).
    pub fn bind(port: u16) -> Result<Listener, String> {
        let l = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
            format!("cannot listen on 127.0.0.1:{port} for the sign-in redirect: {e}")
        })?;
        let port = l.local_addr().map_err(|e| e.to_string())?.port();
        l.set_nonblocking(true).map_err(|e| e.to_string())?;
        Ok(Listener { l, port })
    }

    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    /// Wait for the redirect to `/callback`; return its `code` once `state` matches. Other
    /// paths (a favicon) get a 404 and the wait goes on; the listener closes when this returns.
    pub fn wait(self, state: &str, timeout: Duration) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            // Checked before every accept: connections that keep arriving (and each hold
            // the listener up to its 5 s read timeout) never extend the wait.
            if Instant::now() >= deadline {
                return Err(format!(
                    "no answer from the browser within {} s; sign-in abandoned",
                    timeout.as_secs()
                ));
            }
            match self.l.accept() {
                Ok((s, _)) => {
                    if let Some(r) = answer(s, state) {
                        return r;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(format!("the sign-in listener failed: {e}")),
            }
        }
    }
}

fn reply(mut s: &TcpStream, status: &str, text: &str) {
    let body = format!("<!doctype html><title>bash-agent</title><p>{text}</p>");
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = s.flush();
}

/// One connection: `None` when it was not the callback.
fn answer(s: TcpStream, state: &str) -> Option<Result<String, String>> {
    let _ = s.set_nonblocking(false);
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut line = String::new();
    // The request line only (capped); the headers are not needed.
    BufReader::new(std::io::Read::take(&s, 8192))
        .read_line(&mut line)
        .ok()?;
    let target = line.split_whitespace().nth(1)?.to_string();
    let u = url::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    if u.path() != "/callback" {
        reply(&s, "404 Not Found", "Not found.");
        return None;
    }
    let q = |k: &str| {
        u.query_pairs()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.into_owned())
    };
    let res = if q("state").as_deref() != Some(state) {
        Err(
            "the sign-in answer's state did not match (a stale or forged redirect); not accepted"
                .to_string(),
        )
    } else if let Some(e) = q("error") {
        let d = q("error_description").unwrap_or_default();
        Err(format!(
            "the authorization server refused: {e} {}",
            d.chars().take(200).collect::<String>()
        )
        .trim()
        .to_string())
    } else {
        q("code").ok_or_else(|| "the sign-in answer carried no code".to_string())
    };
    match &res {
        Ok(_) => reply(
            &s,
            "200 OK",
            "Signed in. You can close this tab and return to bash-agent.",
        ),
        Err(_) => reply(
            &s,
            "400 Bad Request",
            "Sign-in failed; see bash-agent for why.",
        ),
    }
    Some(res)
}

/// Open the browser on `url` (its own process group; ended after `grace` if still there,
/// as a launcher like xdg-open returns at once). False when there is none to open.
pub fn open_browser(url: &str) -> Option<std::process::Child> {
    let cmd = match std::env::var("BROWSER") {
        Ok(b) if !b.trim().is_empty() => b,
        _ if std::env::var_os("DISPLAY").is_some()
            || std::env::var_os("WAYLAND_DISPLAY").is_some() =>
        {
            "xdg-open".to_string()
        }
        _ => return None,
    };
    // $BROWSER may hold several commands separated by ':' (the convention); the first.
    let first = cmd.split(':').next().unwrap_or_default();
    let mut words = first.split_whitespace();
    let prog = words.next()?;
    Command::new(prog)
        .args(words)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()
}

/// End a browser launcher still running (its whole group).
pub fn end(child: Option<std::process::Child>) {
    if let Some(mut c) = child {
        if matches!(c.try_wait(), Ok(None)) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(c.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        let _ = c.wait();
    }
}
