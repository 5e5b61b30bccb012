//! Slash commands, the palette, `!cmd`, `@path` and images in a real terminal (tmux)
//! against the scripted model: the palette on `/` and Tab, an unknown command refused with
//! no request, `//text`, /cost, /permissions, /model (show and switch), /clear, /resume,
//! `!cmd` and `@path` (with Tab completion), and an `@image.png` sent natively; one run on
//! TERM=dumb with NO_COLOR. Also the image shape each provider's request carries.
use crate::interactive_e2e::{have_tmux, read_events, Run, Tmux};
use crate::support::*;
use serde_json::Value;

/// A tiny (not necessarily decodable) PNG: the signature is what is checked.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRslash-test";
/// The start of a JPEG (its signature is what is checked).
const JPG: &[u8] = b"\xff\xd8\xff\xe0\x00\x10JFIF-slash-test";
/// `PNG` in base64.
fn png_b64() -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(PNG)
}

fn answers() -> String {
    serde_json::json!([{"text": "Answer.", "repeat": true}]).to_string()
}

/// The last user message of a recorded claude request, as JSON text.
fn last_user(req: &Value) -> String {
    req["body"]["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .map(|m| m.to_string())
        .unwrap_or_default()
}

struct Fixture {
    env: Env,
    mock: Mock,
    t: Tmux,
}

impl Fixture {
    fn new() -> Fixture {
        let env = Env::new();
        let t = Tmux::for_env(&env);
        Fixture {
            mock: Mock::start(&answers()),
            env,
            t,
        }
    }
    fn start(&self, name: &str, vars: &str, args: &str) -> Run {
        let run = Run::start_with(
            &self.t,
            &self.env,
            name,
            &self.mock.base("claude"),
            vars,
            args,
        );
        self.wait(name, "the prompt", || self.t.last_line(name) == ">");
        run
    }
    fn diag(&self, w: &str) -> String {
        format!(
            "screen:\n{}\nrequests: {}",
            self.t.screen(w),
            self.mock.requests().len()
        )
    }
    fn wait(&self, w: &str, what: &str, cond: impl FnMut() -> bool) {
        wait_until_or(what, 30, cond, || self.diag(w));
    }
    /// Type a line and Enter.
    fn send(&self, w: &str, line: &str) {
        self.t.type_text(w, line);
        self.t.keys(w, &["Enter"]);
    }
    fn shows(&self, w: &str, what: &str) {
        self.wait(w, what, || self.t.screen(w).contains(what));
    }
    fn requests(&self) -> usize {
        self.mock.requests().len()
    }
    /// Wait until the turn whose request or answer was seen has ended.
    fn turn_end(&self, w: &str) {
        self.t
            .wait_turn_end(w, &self.env.project_dir(), || self.diag(w));
    }
}

#[test]
fn palette_unknown_command_literal_slash_and_session_info() {
    if !have_tmux() {
        return;
    }
    let f = Fixture::new();
    std::fs::write(f.env.cwd.join("notes.txt"), "note-content-77\n").expect("write");
    let run = f.start(
        "pal",
        "NO_COLOR=1 TERM=xterm-256color",
        "--model test-model-a",
    );
    let w = run.name.as_str();

    // `/` shows the commands with their descriptions under the prompt.
    f.t.type_text(w, "/");
    f.shows(w, "this session's permission mode and rules");
    assert!(f.t.screen(w).contains("  /status"), "{}", f.diag(w));
    // Tab twice lists the candidates; then `st` + Tab completes /status.
    f.t.keys(w, &["Tab"]);
    f.t.keys(w, &["Tab"]);
    f.wait(w, "the completion list", || {
        f.t.screen(w).matches("  /status ").count() >= 2
    });
    f.t.type_text(w, "st");
    f.shows(w, "> /status  — model, tokens, context and a cost estimate");
    f.t.keys(w, &["Tab"]);
    f.wait(w, "the completed name", || f.t.last_line(w) == "> /status");
    f.t.keys(w, &["Enter"]);
    f.shows(w, "context   0 /");

    // An unknown command is refused with a suggestion and costs no request.
    f.send(w, "/stauts");
    f.shows(w, "Unknown command /stauts — did you mean /status?");
    f.wait(w, "the prompt", || f.t.last_line(w) == ">");
    assert_eq!(f.requests(), 0, "{}", f.diag(w));

    // /model without a name shows the model; /permissions the mode.
    f.send(w, "/model");
    f.shows(w, "model     test-model-a (claude)");
    f.send(w, "/permissions");
    f.shows(w, "permission mode  default");
    assert_eq!(f.requests(), 0, "{}", f.diag(w));

    // `//text` sends the literal `/text`.
    f.send(w, "//literal slash line");
    f.wait(w, "the first request", || f.requests() == 1);
    let reqs = f.mock.requests();
    let u = last_user(&reqs[0]);
    assert!(u.contains("\"/literal slash line\""), "{u}");
    f.shows(w, "Answer.");
    f.turn_end(w);

    // /cost: the call just made.
    f.send(w, "/cost");
    f.shows(w, "cost of session s");
    f.shows(w, "total");
    assert!(f.t.screen(w).contains("test-model-a"), "{}", f.diag(w));

    // `@path` completes with Tab and attaches the file to the message.
    f.t.type_text(w, "read @no");
    f.t.keys(w, &["Tab"]);
    f.wait(w, "the completed path", || {
        f.t.last_line(w) == "> read @notes.txt"
    });
    f.send(w, "please");
    f.shows(w, "Attached notes.txt (16 bytes)");
    f.wait(w, "the second request", || f.requests() == 2);
    let u = last_user(&f.mock.requests()[1]);
    assert!(u.contains("read @notes.txt please"), "{u}");
    assert!(
        u.contains("<attached-file path=\\\"notes.txt\\\">\\nnote-content-77\\n</attached-file>"),
        "{u}"
    );
    // The event keeps what was typed.
    let evs = read_events(&f.env.session_dir("s").join("events.jsonl"));
    assert!(evs
        .iter()
        .any(|e| e["type"] == "user_input" && e["content"] == "read @notes.txt please"));
    f.turn_end(w);

    // /init: the `bash-agent init` call (a repository summary), AGENTS.md written.
    f.send(w, "/init");
    f.wait(w, "the third request", || f.requests() == 3);
    let u = last_user(&f.mock.requests()[2]);
    assert!(u.contains("AGENTS.md"), "{u}");
    f.shows(w, "Wrote ");
    assert!(f.env.cwd.join("AGENTS.md").exists());
    f.turn_end(w);
    // A second /init keeps the file and costs no request.
    f.send(w, "/init");
    f.shows(w, "/init --force replaces it");
    assert_eq!(f.requests(), 3);
    f.wait(w, "the prompt", || f.t.last_line(w) == ">");
    f.t.keys(w, &["C-d"]);
    f.wait(w, "the exit", || run.rc().is_some());
}

/// Keys typed at once after `/model NAME` reach the restarted run whole: in one write
/// with the command (read by the old run's editor past the command's line: handed over)
/// and right after it (still in the terminal: read by the new run's editor), a partial line
/// finished there included.
#[test]
fn keys_typed_during_a_restart_reach_the_new_run() {
    if !have_tmux() {
        return;
    }
    let f = Fixture::new();
    let run = f.start(
        "ta",
        "NO_COLOR=1 TERM=xterm-256color",
        "--model test-model-a",
    );
    let w = run.name.as_str();
    // The command, Enter and the start of the next line in one write.
    f.t.keys(w, &["-l", "/model test-model-b\rafter sw"]);
    f.t.keys(w, &["-l", "it"]);
    f.shows(w, "Switching this session to test-model-b");
    f.wait(w, "the carried keys on the new prompt", || {
        f.t.last_line(w) == "> after swit"
    });
    f.send(w, "ch");
    f.wait(w, "a request", || f.requests() == 1);
    let req = &f.mock.requests()[0];
    assert_eq!(req["body"]["model"], "test-model-b");
    assert!(
        last_user(req).contains("\"after switch\""),
        "{}",
        last_user(req)
    );
    f.shows(w, "Answer.");
    f.turn_end(w);

    // A whole line typed in the same write goes to the new run as its first input.
    f.t.keys(w, &["-l", "/model test-model-a\rsecond line\r"]);
    f.wait(w, "a request", || f.requests() == 2);
    let req = &f.mock.requests()[1];
    assert_eq!(req["body"]["model"], "test-model-a");
    assert!(last_user(req).contains("second line"), "{}", last_user(req));
    f.shows(w, "Answer.");
    f.turn_end(w);
}

#[test]
fn model_switch_clear_and_resume() {
    if !have_tmux() {
        return;
    }
    let f = Fixture::new();
    let run = f.start(
        "sw",
        "NO_COLOR=1 TERM=xterm-256color",
        "--model test-model-a",
    );
    let w = run.name.as_str();

    // /model NAME: the same session goes on with the other model (no new banner).
    f.send(w, "/model test-model-b");
    f.shows(w, "Switching this session to test-model-b");
    f.wait(w, "the prompt after the switch", || f.t.last_line(w) == ">");
    f.t.wait_editor(w);
    f.send(w, "after switch");
    f.wait(w, "a request", || f.requests() == 1);
    assert_eq!(f.mock.requests()[0]["body"]["model"], "test-model-b");
    f.shows(w, "Answer.");
    assert_eq!(
        f.t.screen(w).matches("bash-agent interactive mode").count(),
        1,
        "{}",
        f.diag(w)
    );
    f.wait(w, "the prompt", || f.t.last_line(w) == ">");

    // /clear: a fresh session (the old one is named for resuming).
    f.send(w, "/clear");
    f.shows(w, "Resume with: --session s");
    f.wait(w, "the fresh session's prompt", || {
        f.t.screen(w).matches("bash-agent interactive mode").count() == 2 && f.t.last_line(w) == ">"
    });
    f.t.wait_editor(w);
    f.send(w, "fresh start");
    f.wait(w, "a request", || f.requests() == 2);
    let body = f.mock.requests()[1]["body"].clone();
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(1), "{body}");
    assert_eq!(body["model"], "test-model-b");
    f.shows(w, "Answer.");
    f.turn_end(w);

    // /resume: a numbered list; `1` switches back to `s`, whose history goes on.
    f.send(w, "/resume");
    f.shows(w, "Type a number to resume that session");
    assert!(
        f.t.screen(w)
            .lines()
            .any(|l| l.starts_with("   1. after switch") && l.ends_with(" s")),
        "{}",
        f.diag(w)
    );
    f.send(w, "1");
    f.wait(w, "the resumed session", || {
        f.t.screen(w).matches("bash-agent interactive mode").count() == 3 && f.t.last_line(w) == ">"
    });
    f.send(w, "back again");
    f.wait(w, "a request", || f.requests() == 3);
    let body = f.mock.requests()[2]["body"].to_string();
    assert!(
        body.contains("after switch") && body.contains("back again"),
        "{body}"
    );
    assert!(!body.contains("fresh start"), "{body}");
    f.shows(w, "Answer.");
    f.turn_end(w);
    f.t.keys(w, &["C-d"]);
    f.wait(w, "the exit", || run.rc().is_some());
    assert_eq!(run.rc().as_deref(), Some("0"));
}

#[test]
fn shell_command_and_image_on_a_dumb_terminal() {
    if !have_tmux() {
        return;
    }
    let f = Fixture::new();
    std::fs::write(f.env.cwd.join("pic.png"), PNG).expect("write");
    std::fs::write(f.env.cwd.join("photo.jpg"), JPG).expect("write");
    let run = f.start("dumb", "NO_COLOR=1 TERM=dumb", "--vision on");
    let w = run.name.as_str();

    // `!cmd` runs now (no request) and its output goes with the next message.
    f.send(w, "!echo shell-out-$((40+2))");
    f.shows(w, "shell-out-42");
    f.shows(w, "goes to the model with your next message");
    assert_eq!(f.requests(), 0, "{}", f.diag(w));
    // The Bash tool's policy applies: a system file is not read.
    f.send(w, "!cat /etc/passwd");
    f.shows(w, "command blocked by bash safety policy");
    assert!(!f.t.screen(w).contains("root:x:"), "{}", f.diag(w));

    // `@pic.png` becomes `[Image #1]`, sent as an image block; a JPEG too.
    f.send(w, "what is in @pic.png and @photo.jpg?");
    f.shows(w, "Attached image pic.png as [Image #1]");
    f.shows(w, "Attached image photo.jpg as [Image #2]");
    f.wait(w, "the request", || f.requests() == 1);
    let req = &f.mock.requests()[0];
    let user = req["body"]["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    let content = user["content"].as_array().cloned().unwrap_or_default();
    let text = content[0]["text"].as_str().unwrap_or("");
    assert!(
        text.starts_with("what is in [Image #1] and [Image #2]?"),
        "{user}"
    );
    assert!(text.contains("shell-out-42"), "{user}");
    assert!(
        text.contains("<user-shell-command command=\"cat /etc/passwd\">"),
        "{user}"
    );
    assert!(!text.contains("<attached-images>"), "{user}");
    let img = content
        .iter()
        .find(|b| b["type"] == "image")
        .expect("image");
    assert_eq!(img["source"]["type"], "base64");
    assert_eq!(img["source"]["media_type"], "image/png");
    assert_eq!(img["source"]["data"], png_b64().as_str());
    let jpg: Vec<&Value> = content.iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(jpg.len(), 2, "{user}");
    assert_eq!(jpg[1]["source"]["media_type"], "image/jpeg");
    // Stored: the placeholder shape; the bytes in the session's images/ folder.
    let sdir = f.env.session_dir("s");
    assert_eq!(std::fs::read(sdir.join("images/1.png")).expect("img"), PNG);
    let conv = std::fs::read_to_string(sdir.join("conversation.jsonl")).expect("conv");
    assert!(
        conv.contains("what is in [Image #1] and [Image #2]?"),
        "{conv}"
    );
    assert_eq!(std::fs::read(sdir.join("images/2.jpg")).expect("img"), JPG);
    assert!(
        conv.contains("<attached-images>\\n[Image #1] => "),
        "{conv}"
    );
    f.shows(w, "Answer.");
    f.turn_end(w);
    f.t.keys(w, &["C-d"]);
    f.wait(w, "the exit", || run.rc().is_some());
}

/// A one-shot run in session `v` whose images/1.png exists; the recorded body. `vision`
/// `settings`: no flag, `"vision": true` in the project's settings file.
fn image_request(provider: &str, vision: &str) -> String {
    let env = Env::new();
    let mut args = vec!["--session", "v", "--vision", vision, "look at [Image #1]"];
    if vision == "settings" {
        let dir = env.cwd.join(".bash-agent");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("settings.json"), r#"{"vision": true}"#).expect("write");
        args.drain(2..4);
    }
    let img = env.session_dir("v").join("images");
    std::fs::create_dir_all(&img).expect("mkdir");
    std::fs::write(img.join("1.png"), PNG).expect("write");
    let mock = Mock::start(&answers());
    let o = env.agent(&mock.base(provider), provider, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 1);
    reqs[0]["body"].to_string()
}

#[test]
fn images_reach_each_provider_in_its_shape() {
    let b64 = png_b64();
    let claude = image_request("claude", "on");
    // The block's source; a cache breakpoint may follow it (docs/providers.md#prompt-caching).
    let want = format!(
        "{{\"type\":\"image\",\"source\":{{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"{b64}\"}}"
    );
    assert!(claude.contains(&want), "{claude}");
    let openai = image_request("openai", "on");
    let want = format!(
        "{{\"type\":\"image_url\",\"image_url\":{{\"url\":\"data:image/png;base64,{b64}\"}}}}"
    );
    assert!(openai.contains(&want), "{openai}");
    let responses = image_request("responses", "on");
    let want =
        format!("{{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,{b64}\"}}");
    assert!(responses.contains(&want), "{responses}");
    // The settings key turns it on too.
    assert!(image_request("claude", "settings").contains(&b64));
    // Vision off: the text mapping only.
    let off = image_request("claude", "off");
    assert!(!off.contains(&b64), "{off}");
    assert!(off.contains("<attached-images>"), "{off}");
}

#[test]
fn an_unknown_command_in_a_one_shot_run_costs_no_request() {
    let env = Env::new();
    let mock = Mock::start(&answers());
    let o = env.agent(&mock.base("claude"), "claude", &["/stauts"]);
    assert_eq!(o.status.code(), Some(1));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        all.contains("Unknown command /stauts — did you mean /status?"),
        "{all}"
    );
    assert_eq!(mock.requests().len(), 0);
    // A path is no command: it goes to the model.
    let o = env.agent(&mock.base("claude"), "claude", &["/etc/hosts: what is it?"]);
    assert!(o.status.success());
    assert_eq!(mock.requests().len(), 1);
}
