//! Running hook commands: `sh -c` in the project folder, each in its own process group with
//! the scrubbed environment, all hooks of one event in parallel, each bounded by its timeout
//! (a hook still running then is killed with its whole group).
use super::CommandHook;
use crate::util::cancel::Cancel;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How one hook ended.
#[derive(Debug)]
pub enum Ran {
    Exited {
        code: i32,
        stdout: String,
        stderr: String,
        /// stdout was longer than [`MAX_READ`] and was cut: what it said cannot be read.
        cut: bool,
    },
    TimedOut,
    /// The user interrupted the run while the hook ran (its group was killed).
    Interrupted,
    Failed(String),
}

/// Bytes of a hook's stdout or stderr kept in memory; the rest is read and dropped, so a
/// hook that prints without end neither grows the agent nor blocks on a full pipe.
pub const MAX_READ: usize = 1024 * 1024;

/// Characters of a hook's output that go into the conversation at most (Claude Code cuts at
/// about 10,000 too): injected context is resent with every request of the session.
pub const MAX_INJECTED_CHARS: usize = 10_000;

/// The first [`MAX_READ`] bytes, and whether there was more.
fn read_all(r: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<(String, bool)> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let mut rest = 0;
        if let Some(mut r) = r {
            let _ = r.by_ref().take(MAX_READ as u64).read_to_end(&mut s);
            rest = std::io::copy(&mut r, &mut std::io::sink()).unwrap_or(0);
        }
        (String::from_utf8_lossy(&s).into_owned(), rest > 0)
    })
}

/// `text` as it goes into the conversation: at most [`MAX_INJECTED_CHARS`] characters, and
/// when it was longer a line saying so (for the model, which would otherwise take a cut
/// text for the whole).
pub fn cap_injected(text: &str) -> String {
    match text.char_indices().nth(MAX_INJECTED_CHARS) {
        None => text.to_string(),
        Some((at, _)) => format!(
            "{}\n[hook output cut: only its first {MAX_INJECTED_CHARS} characters are kept]",
            &text[..at]
        ),
    }
}

fn run_one(hook: &CommandHook, stdin: &str, cwd: &Path, cancel: &Cancel) -> Ran {
    // Ctrl-C during the hook ends it; a hook started after the interrupt (SessionEnd) runs.
    // Decided before the spawn: the hook may run (and the user press Ctrl-C) before this
    // thread gets the CPU back, and an interrupt that lands then is one during the hook.
    let armed = !cancel.is_cancelled();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&hook.command)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // The same confinement as the model's commands: the scrubbed environment and, when the
    // run has one, the Landlock sandbox (a hook is code from a settings file, like a tool).
    let guard = match crate::sandbox::confine(&mut cmd, cwd) {
        Ok(g) => g,
        Err(e) => return Ran::Failed(format!("cannot apply the sandbox: {e}")),
    };
    // Claude Code's variable: the project root (hook commands are `$CLAUDE_PROJECT_DIR/...`).
    cmd.env("CLAUDE_PROJECT_DIR", crate::settings::project_root(cwd));
    let spawned = cmd.spawn();
    drop(guard);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return Ran::Failed(format!("cannot start: {e}")),
    };
    let pg = nix::unistd::Pid::from_raw(child.id() as i32);
    if let Some(mut w) = child.stdin.take() {
        let data = stdin.to_string();
        // A hook that never reads stdin must not block us: the write has its own thread.
        std::thread::spawn(move || {
            let _ = w.write_all(data.as_bytes());
        });
    }
    let out = read_all(child.stdout.take());
    let err = read_all(child.stderr.take());
    let t0 = Instant::now();
    let mut interrupted = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if armed && cancel.is_cancelled() => {
                interrupted = true;
                break None;
            }
            Ok(None) if t0.elapsed() >= hook.timeout => break None,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Ran::Failed(e.to_string()),
        }
    };
    // The group goes either way: a hook's background children must not outlive it holding
    // its pipes open (the readers would wait for them).
    let _ = nix::sys::signal::killpg(pg, nix::sys::signal::Signal::SIGKILL);
    let Some(status) = status else {
        let _ = child.wait();
        return if interrupted {
            Ran::Interrupted
        } else {
            Ran::TimedOut
        };
    };
    let (stdout, cut) = out.join().unwrap_or_default();
    let (stderr, _) = err.join().unwrap_or_default();
    Ran::Exited {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
        cut,
    }
}

/// Run the hooks in parallel; results in the same order. `cancel` (the run's interrupt)
/// ends hooks still running when it is set.
pub fn run_all(hooks: &[&CommandHook], stdin: &str, cwd: &Path, cancel: &Cancel) -> Vec<Ran> {
    if hooks.len() == 1 {
        return vec![run_one(hooks[0], stdin, cwd, cancel)];
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = hooks
            .iter()
            .map(|h| s.spawn(move || run_one(h, stdin, cwd, cancel)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Ran::Failed("the hook runner panicked".into()))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::output::merge;
    use crate::hooks::{HookEvent, Outcome, Permission};

    fn hook(cmd: &str, secs: u64) -> CommandHook {
        CommandHook {
            command: cmd.into(),
            timeout: Duration::from_secs(secs),
        }
    }

    fn one(ev: HookEvent, cmd: &str) -> Outcome {
        let h = hook(cmd, 10);
        let r = run_all(
            &[&h],
            "{\"tool_name\":\"Bash\"}",
            Path::new("/"),
            &Cancel::new(),
        );
        let mut o = Outcome::default();
        for x in r {
            merge(ev, &h, x, &mut o);
        }
        o
    }

    #[test]
    fn exit_codes_and_json_decide() {
        let o = one(HookEvent::PreToolUse, "echo no >&2; exit 2");
        assert_eq!(o.block.as_deref(), Some("no"));
        let o = one(HookEvent::PreToolUse, "exit 3");
        assert!(o.block.is_none());
        assert!(o.user_messages[0].contains("exit 3"), "{o:?}");
        let o = one(
            HookEvent::PreToolUse,
            r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}'"#,
        );
        assert_eq!(o.block.as_deref(), Some("nope"));
        assert_eq!(o.permission, Some(Permission::Deny));
        let o = one(HookEvent::UserPromptSubmit, "cat >/dev/null; echo ctx");
        assert_eq!(o.context, vec!["ctx".to_string()]);
        let o = one(
            HookEvent::Stop,
            r#"echo '{"continue":false,"stopReason":"halt"}'"#,
        );
        assert_eq!(o.stop.as_deref(), Some("halt"));
        let o = one(
            HookEvent::PreToolUse,
            "grep -q '\"tool_name\":\"Bash\"' && echo seen",
        );
        assert_eq!(o.verbose, vec!["seen".to_string()]);
    }

    #[test]
    fn a_hanging_hook_is_killed_with_its_group() {
        let h = hook("sleep 30 & sleep 30", 0);
        let h = CommandHook {
            timeout: Duration::from_millis(200),
            ..h
        };
        let r = run_all(&[&h], "{}", Path::new("/"), &Cancel::new());
        assert!(matches!(r[0], Ran::TimedOut), "{r:?}");
    }

    #[test]
    fn injected_output_is_capped_and_says_so() {
        assert_eq!(cap_injected("short"), "short");
        let long = "é".repeat(MAX_INJECTED_CHARS + 5);
        let c = cap_injected(&long);
        assert!(c.starts_with(&"é".repeat(MAX_INJECTED_CHARS)));
        assert!(!c.contains(&"é".repeat(MAX_INJECTED_CHARS + 1)));
        assert!(
            c.ends_with("only its first 10000 characters are kept]"),
            "{c}"
        );
        let o = one(
            HookEvent::UserPromptSubmit,
            "cat >/dev/null; head -c 3000000 /dev/zero | tr '\\0' y",
        );
        assert!(o.context[0].len() < MAX_INJECTED_CHARS + 100);
        assert!(o.context[0].contains("hook output cut"));
    }

    /// Issue 42 item 10: a deny whose reason is over the output cap is cut; the cut JSON
    /// does not parse, and must refuse, never let the call through.
    #[test]
    fn a_cut_json_answer_refuses() {
        let deny = r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"'; head -c 2000000 /dev/zero | tr '\0' x; printf '"}}'"#;
        for ev in [
            HookEvent::PreToolUse,
            HookEvent::PermissionRequest,
            HookEvent::UserPromptSubmit,
        ] {
            let o = one(ev, deny);
            let b = o.block.as_deref().unwrap_or_default();
            assert!(
                b.contains("was cut and cannot be read") && b.contains("refused"),
                "{ev:?}: {b}"
            );
        }
        // Under the cap the same answer is read whole.
        let small = deny.replace("2000000", "1000");
        let o = one(HookEvent::PreToolUse, &small);
        assert_eq!(o.permission, Some(Permission::Deny));
        assert!(o.block.unwrap().starts_with("xxx"));
    }
}
