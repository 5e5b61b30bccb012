//! `--send` / `--inject` / `--wait` script clients, run as the real binary.

use crate::support::ipc::session;
use crate::support::Env;
use bash_agent::ipc::fifo::{InputChannel, InputMsg};
use bash_agent::ipc::notify;
use bash_agent::session::Session;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn client(e: &Env, args: &[&str]) -> Command {
    let mut c = e.cmd_in(&e.cwd, args);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn run(e: &Env, args: &[&str]) -> Output {
    client(e, args).output().unwrap()
}

#[test]
fn no_agent_running_exits_1_without_blocking() {
    let e = Env::new();
    let t0 = Instant::now();
    for args in [
        &["--session", "nobody", "--send", "hi"][..],
        &["--session", "nobody", "--inject", "hi"][..],
        &["--session", "nobody", "--send", "hi", "--wait"][..],
    ] {
        let o = run(&e, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("no agent is running on session nobody"),
            "{err}"
        );
    }
    // A stale session folder with FIFOs nobody reads: still no hang.
    let (_s, _) = session(&e.project_dir(), "stale");
    let o = run(&e, &["--session", "stale", "--send", "hi"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(t0.elapsed() < Duration::from_secs(10));
    // Usage errors.
    assert_eq!(run(&e, &["--send", "hi"]).status.code(), Some(2));
    assert_eq!(
        run(&e, &["--session", "../x", "--send", "hi"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn send_inject_and_wait_against_a_reader() {
    let e = Env::new();
    let (s, log) = session(&e.project_dir(), "live");
    let ch = InputChannel::open(&s).unwrap();
    let _r = notify::spawn_reader(&s, log.clone(), ch.writer()).unwrap();

    let o = run(&e, &["--session", "live", "--send", "run the tests"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        ch.rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        InputMsg::UserInput("run the tests".into())
    );

    let o = run(&e, &["--session", "live", "--inject", "also lint"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        ch.rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        InputMsg::NotifyPending
    );
    let f = notify::drain(&s);
    assert_eq!(
        (f[0].kind(), f[0].field(1).as_str()),
        ("USER_NOTIFY", "also lint")
    );

    // --wait: play the agent's part by appending the turn's events.
    let child = client(&e, &["--session", "live", "--send", "say hi", "--wait"])
        .spawn()
        .unwrap();
    assert_eq!(
        ch.rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        InputMsg::UserInput("say hi".into())
    );
    for l in [
        r#"{"type":"user_input","content":"say hi"}"#,
        r#"{"type":"text","content":"Hi"}"#,
        r#"{"type":"text","content":"!"}"#,
        r#"{"type":"stop","reason":"end_turn"}"#,
        r#"{"type":"stop","reason":"end_turn"}"#,
    ] {
        log.append(l).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "Hi!\n");
}

#[test]
fn wait_ends_when_the_agent_goes_away() {
    let e = Env::new();
    let (s, _) = session(&e.project_dir(), "brief");
    let ch = InputChannel::open(&s).unwrap();
    let child = client(&e, &["--session", "brief", "--send", "x", "--wait"])
        .spawn()
        .unwrap();
    assert_eq!(
        ch.rx.recv_timeout(Duration::from_secs(5)).unwrap(),
        InputMsg::UserInput("x".into())
    );
    drop(ch); // the reader thread still holds the FIFO; remove it like an exiting agent.
    let _ = std::fs::remove_file(Session::new(&s.project_dir(), "brief").input_fifo());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("stopped before answering"));
}
