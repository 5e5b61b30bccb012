//! The real `bash-agent -i` in a terminal (tmux) against the scripted model server: a
//! streamed answer, a turn interrupted with Ctrl+C, a Ctrl+O injection into a running
//! turn, a line queued while a turn runs, the Ctrl+D exit (goodbye, resume hint, session
//! files, history), and the replay of the earlier turns when the session is resumed.
//! Also `-i` without a terminal (stdin piped). The tmux tests are skipped (with a note)
//! when tmux is missing.
use crate::support::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) struct Tmux {
    pub(crate) sock: PathBuf,
}

impl Tmux {
    pub(crate) fn run(&self, args: &[&str]) -> String {
        // The pane command runs under `default-shell -c`: make it a POSIX shell.
        let o = Command::new("tmux")
            .env("SHELL", "/bin/sh")
            .arg("-f")
            .arg("/dev/null")
            .arg("-S")
            .arg(&self.sock)
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
    pub(crate) fn keys(&self, target: &str, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", target];
        a.extend_from_slice(keys);
        self.run(&a);
    }
    pub(crate) fn cursor(&self, target: &str) -> String {
        self.run(&[
            "display-message",
            "-p",
            "-t",
            target,
            "#{cursor_x},#{cursor_y}",
        ])
    }
    /// Type `text` one key per write, each after the cursor moved (as a person types).
    pub(crate) fn type_text(&self, target: &str, text: &str) {
        for c in text.chars() {
            let before = self.cursor(target);
            self.keys(target, &["-l", &c.to_string()]);
            let t0 = Instant::now();
            while self.cursor(target) == before && t0.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
    /// The whole pane, scrollback included, wrapped lines joined, trailing blanks cut.
    pub(crate) fn screen(&self, target: &str) -> String {
        let s = self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", target]);
        s.lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n")
            .trim_end()
            .to_string()
    }
    /// The last non-blank line of the pane (the prompt line while the editor runs).
    pub(crate) fn last_line(&self, target: &str) -> String {
        self.screen(target).lines().last().unwrap_or("").to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

pub(crate) fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: tmux missing, the interactive terminal test is skipped");
    }
    ok
}

/// Event lines parsed so far (a line being written is skipped).
pub(crate) fn read_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn count(evs: &[Value], ty: &str) -> usize {
    evs.iter().filter(|e| e["type"] == ty).count()
}

fn stops(evs: &[Value]) -> Vec<String> {
    evs.iter()
        .filter(|e| e["type"] == "stop")
        .map(|e| e["reason"].as_str().unwrap_or("").to_string())
        .collect()
}

pub(crate) fn alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// One run of the real binary inside tmux session `name`: its pid and exit code files.
pub(crate) struct Run {
    pub(crate) name: String,
    pid_file: PathBuf,
    rc_file: PathBuf,
}

impl Run {
    pub(crate) fn start(t: &Tmux, env: &Env, name: &str, url: &str) -> Run {
        Run::start_with(t, env, name, url, "NO_COLOR=1 TERM=xterm-256color", "")
    }
    /// `vars`: extra environment (`NO_COLOR=1 TERM=…`); `args`: extra flags (shell words).
    pub(crate) fn start_with(
        t: &Tmux,
        env: &Env,
        name: &str,
        url: &str,
        vars: &str,
        args: &str,
    ) -> Run {
        Run::start_opts(t, env, name, url, vars, args, false)
    }
    /// [`Run::start_with`]; `hangup_proof`: the pane's shell ignores SIGHUP, so it still
    /// writes the exit code after the test closes the terminal (the agent installs its own
    /// SIGHUP handler, which replaces the inherited "ignore").
    pub(crate) fn start_opts(
        t: &Tmux,
        env: &Env,
        name: &str,
        url: &str,
        vars: &str,
        args: &str,
        hangup_proof: bool,
    ) -> Run {
        let tmp = env.dir.path();
        let pid_file = tmp.join(format!("{name}.pid"));
        let rc_file = tmp.join(format!("{name}.rc"));
        let script = tmp.join(format!("{name}.sh"));
        // `exec` keeps the pid written by the shell: it becomes the agent's.
        std::fs::write(
            &script,
            format!(
                "cd '{cwd}' || exit 97\necho $$ > '{pid}'\nexec env -i PATH='{path}' \
                 HOME='{home}' BASH_AGENT_HOME='{home}' {vars} \
                 LANG=C.UTF-8 BASH_AGENT_RETRY_BASE_MS=20 '{bin}' -i --session s \
                 --base-url '{url}' --api-key k {args}\n",
                cwd = env.cwd.display(),
                pid = pid_file.display(),
                path = std::env::var("PATH").unwrap_or_default(),
                home = env.home.display(),
                bin = BIN,
            ),
        )
        .expect("script");
        let cmd = if hangup_proof {
            format!(
                "trap '' HUP; sh '{}'; echo $? > '{}'",
                script.display(),
                rc_file.display()
            )
        } else {
            format!(
                "sh '{}'; echo $? > '{}'; sleep 120",
                script.display(),
                rc_file.display()
            )
        };
        t.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "100",
            "-y",
            "40",
            &cmd,
        ]);
        Run {
            name: name.to_string(),
            pid_file,
            rc_file,
        }
    }
    pub(crate) fn pid(&self) -> Option<i32> {
        std::fs::read_to_string(&self.pid_file)
            .ok()?
            .trim()
            .parse()
            .ok()
    }
    pub(crate) fn rc(&self) -> Option<String> {
        let s = std::fs::read_to_string(&self.rc_file).ok()?;
        s.ends_with('\n').then(|| s.trim().to_string())
    }
}

/// Lines of `n` numbered rows: `"{tag} 01\n{tag} 02\n…"`.
fn rows(tag: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{tag} {i:02}\n")).collect()
}

#[test]
fn real_agent_in_a_terminal() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let script = serde_json::json!([
        // 1. streamed in small pieces
        {"when": "alpha question", "text": "Alpha answer: all good.\nSecond alpha line.",
         "chunk": 4, "delay_ms": 10},
        // 2. slow: interrupted by Ctrl+C after its first row
        {"when": "beta slow story", "text": rows("beta", 99), "chunk": 1, "delay_ms": 100},
        // 3. slow: a line injected with Ctrl+O and a line queued while it streams
        {"when": "gamma slow task", "text": rows("gamma", 50), "chunk": 1, "delay_ms": 15},
        // 3b. the same turn continues with the injected text
        {"when": "please check the tests", "text": "Injection noted."},
        // 4. the queued line, after the gamma turn
        {"when": "delta queued line", "text": "Delta answer."},
    ]);
    let mock = Mock::start(&script.to_string());
    let url = mock.base("claude");
    let sdir = env.session_dir("s");
    let events_path = sdir.join("events.jsonl");
    let evs = || read_events(&events_path);
    let t = Tmux {
        sock: env.dir.path().join("tmux.sock"),
    };
    let run = Run::start(&t, &env, "one", &url);
    let w = run.name.as_str();
    let diag = || {
        format!(
            "screen:\n{}\nevents:\n{}\nrequests: {}",
            t.screen(w),
            std::fs::read_to_string(&events_path).unwrap_or_default(),
            mock.requests().len()
        )
    };
    let prompt_idle = || t.last_line(w) == ">";
    wait_until_or(
        "the banner and the prompt",
        20,
        || t.screen(w).contains("bash-agent interactive mode") && prompt_idle(),
        diag,
    );

    // 1. A prompt and its streamed answer.
    t.type_text(w, "alpha question");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the first answer",
        10,
        || {
            let s = t.screen(w);
            s.contains("Alpha answer: all good.") && s.contains("Second alpha line.")
        },
        diag,
    );
    // (the final stop is logged twice per turn: the stream's and the turn's, spec §4.3)
    wait_until_or(
        "the first turn's end",
        10,
        || stops(&evs()).len() == 2,
        diag,
    );
    assert_eq!(stops(&evs()), ["end_turn", "end_turn"], "{}", diag());
    wait_until_or("the prompt", 10, prompt_idle, diag);

    // 2. A slow answer, interrupted with Ctrl+C while it streams.
    t.type_text(w, "beta slow story");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the slow answer streaming",
        10,
        || t.screen(w).contains("beta 01"),
        diag,
    );
    assert!(sdir.join("agent_running.flag").exists(), "{}", diag());
    t.keys(w, &["C-c"]);
    wait_until_or(
        "the interrupt",
        10,
        || stops(&evs()).len() == 3 && t.screen(w).contains("Interrupted."),
        diag,
    );
    assert_eq!(
        stops(&evs()),
        ["end_turn", "end_turn", "interrupted"],
        "{}",
        diag()
    );
    wait_until_or(
        "the turn's end",
        10,
        || !sdir.join("agent_running.flag").exists(),
        diag,
    );
    wait_until_or("the prompt back", 10, prompt_idle, diag);
    assert!(!t.screen(w).contains("beta 99"), "{}", diag());

    // 3. A slow answer; during it, Ctrl+O injects a line and another line is queued.
    t.type_text(w, "gamma slow task");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the third answer streaming",
        10,
        || t.screen(w).contains("gamma 01"),
        diag,
    );
    t.type_text(w, "please check the tests");
    wait_until_or(
        "the line typed",
        10,
        || t.last_line(w) == "> please check the tests",
        diag,
    );
    t.keys(w, &["C-o"]);
    wait_until_or("the line cleared", 10, prompt_idle, diag);
    wait_until_or(
        "the injection buffered",
        10,
        || {
            std::fs::read_to_string(sdir.join("notify.buf"))
                .unwrap_or_default()
                .contains("please check the tests")
                || count(&evs(), "user_notify") == 1
        },
        diag,
    );
    // 4. A line typed while the turn runs is queued.
    t.type_text(w, "delta queued line");
    t.keys(w, &["Enter"]);
    wait_until_or("the queued line sent", 10, prompt_idle, diag);
    {
        let e = evs();
        assert!(
            !t.screen(w).contains("gamma 50") && sdir.join("agent_running.flag").exists(),
            "the gamma turn ended before the injection and the queued line were typed:\n{}",
            diag()
        );
        assert_eq!(count(&e, "user_input"), 3, "{}", diag());
    }
    wait_until_or(
        "the injection shown",
        20,
        || t.screen(w).contains("[user inject] please check the tests"),
        diag,
    );
    wait_until_or(
        "the queued turn's answer",
        20,
        || t.screen(w).contains("Delta answer.") && stops(&evs()).len() == 8,
        diag,
    );
    wait_until_or(
        "the turn's end",
        10,
        || !sdir.join("agent_running.flag").exists(),
        diag,
    );
    let s = t.screen(w);
    assert!(
        s.contains("gamma 50") && s.contains("Injection noted."),
        "{s}"
    );

    // The model requests: the injection went into the gamma turn's next request.
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 5, "{reqs:#?}");
    let body = |i: usize| reqs[i]["body"].to_string();
    assert!(body(2).contains("gamma slow task") && !body(2).contains("please check the tests"));
    assert!(body(3).contains("please check the tests"), "{}", body(3));
    assert!(!body(3).contains("delta queued line"), "{}", body(3));
    assert!(body(4).contains("delta queued line"), "{}", body(4));

    // 5. Ctrl+D at the empty prompt ends the session.
    let pid = run.pid().expect("pid");
    assert!(alive(pid), "{}", diag());
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 10, || run.rc().is_some(), diag);
    assert_eq!(run.rc().as_deref(), Some("0"), "{}", diag());
    assert!(!alive(pid), "the agent (pid {pid}) is still running");
    let s = t.screen(w);
    assert!(s.contains("Goodbye!"), "{s}");
    assert!(
        s.contains("Resume with: --session s  or  --continue"),
        "{s}"
    );
    // The answers are whole lines, never glued to a prompt line.
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("> ") {
            assert!(
                !rest.contains("Alpha answer")
                    && !rest.contains("gamma 0")
                    && !rest.contains("beta 0"),
                "garbled prompt line: {line:?}\n{s}"
            );
        }
    }

    // The session files.
    let e = evs();
    let inputs: Vec<&str> = e
        .iter()
        .filter(|x| x["type"] == "user_input")
        .map(|x| x["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        inputs,
        [
            "alpha question",
            "beta slow story",
            "gamma slow task",
            "delta queued line"
        ]
    );
    assert_eq!(
        stops(&e),
        [
            "end_turn",
            "end_turn",
            "interrupted",
            "end_turn",
            "end_turn",
            "end_turn",
            "end_turn",
            "end_turn"
        ]
    );
    let pos = |pred: &dyn Fn(&Value) -> bool| e.iter().position(pred).expect("event");
    let notify_at = pos(&|x| x["type"] == "user_notify");
    assert_eq!(e[notify_at]["content"], "please check the tests");
    let gamma_at = pos(&|x| x["type"] == "user_input" && x["content"] == "gamma slow task");
    let delta_at = pos(&|x| x["type"] == "user_input" && x["content"] == "delta queued line");
    assert!(gamma_at < notify_at && notify_at < delta_at, "{e:#?}");
    // The queued line ran after the gamma turn had ended.
    assert!(
        e[gamma_at..delta_at]
            .iter()
            .any(|x| x["type"] == "stop" && x["reason"] == "end_turn"),
        "{e:#?}"
    );
    let conv = std::fs::read_to_string(sdir.join("conversation.jsonl")).expect("conversation");
    for s in [
        "alpha question",
        "beta slow story",
        "gamma slow task",
        "please check the tests",
        "delta queued line",
        "Injection noted.",
        "Delta answer.",
    ] {
        assert!(conv.contains(s), "{s:?} missing in conversation:\n{conv}");
    }
    for f in ["agent_running.flag", "input.fifo", "notify.fifo"] {
        assert!(!sdir.join(f).exists(), "{f} left behind");
    }
    let hist = std::fs::read_to_string(env.home.join(".bash-agent/history")).expect("history");
    assert_eq!(
        hist,
        "alpha question\nbeta slow story\ngamma slow task\ndelta queued line\n"
    );

    // 6. Resuming shows the earlier turns before the new prompt.
    let run2 = Run::start(&t, &env, "two", &url);
    let w2 = run2.name.as_str();
    let diag2 = || format!("screen:\n{}", t.screen(w2));
    wait_until_or(
        "the second run's prompt",
        20,
        || t.last_line(w2) == ">",
        diag2,
    );
    let s = t.screen(w2);
    let lines: Vec<&str> = s.lines().collect();
    let at = |want: &str| {
        lines
            .iter()
            .position(|l| *l == want)
            .unwrap_or_else(|| panic!("{want:?} not replayed:\n{s}"))
    };
    let banner = lines
        .iter()
        .position(|l| l.contains("bash-agent interactive mode"))
        .expect("banner");
    let order = [
        banner,
        at("> alpha question"),
        at("> beta slow story"),
        at("> gamma slow task"),
        at("> delta queued line"),
        lines.len() - 1,
    ];
    assert!(order.windows(2).all(|p| p[0] < p[1]), "{order:?}\n{s}");
    assert!(s.contains("Delta answer."), "{s}");
    let pid2 = run2.pid().expect("pid");
    t.keys(w2, &["C-d"]);
    wait_until_or("the second exit", 10, || run2.rc().is_some(), diag2);
    assert_eq!(run2.rc().as_deref(), Some("0"), "{}", diag2());
    assert!(!alive(pid2));
    assert!(t.screen(w2).contains("Goodbye!"));
    assert_eq!(
        mock.requests().len(),
        5,
        "the replay must not call the model"
    );
}

/// `-i` without a terminal: each stdin line is one turn, EOF ends the session.
#[test]
fn piped_stdin_runs_each_line() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"first piped line","text":"First reply."},
            {"when":"second piped line","text":"Second reply."}]"#,
    );
    let mut child = env
        .cmd()
        .args(["-i", "--session", "p", "--base-url"])
        .arg(mock.base("claude"))
        .args(["--api-key", "k"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"first piped line\nsecond piped line\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("First reply."), "{stdout}");
    assert!(stdout.contains("Second reply."), "{stdout}");
    assert!(
        stdout.find("First reply.") < stdout.find("Second reply."),
        "{stdout}"
    );
    let e = events(&env.session_dir("p").join("events.jsonl"));
    let inputs: Vec<&str> = e
        .iter()
        .filter(|x| x["type"] == "user_input")
        .map(|x| x["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(inputs, ["first piped line", "second piped line"]);
    assert_eq!(stops(&e), ["end_turn"; 4]);
    assert_eq!(mock.requests().len(), 2);
    let sdir = env.session_dir("p");
    for f in ["agent_running.flag", "input.fifo", "notify.fifo"] {
        assert!(!sdir.join(f).exists(), "{f} left behind");
    }
}
