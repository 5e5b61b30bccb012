//! Asking the person (docs/interactive.md, "Permissions" and "Plan mode"): the approval
//! question and the question that leaves plan mode, both as a [`super::menu`]. The answer
//! comes through the [`AskSlot`] from the line editor (a number, ↑/↓ and Enter, or a typed
//! answer); the choice taken is written into the transcript.
use super::gate::CallEnv;
use super::menu::{self, Choice};
use super::{parse_answer, Answer, AskSlot, PermMode};
use crate::util::shown::shown;
use std::sync::mpsc;
use std::time::Duration;

/// Show `header` and the choices, wait for the answer. None: interrupted (Esc, Ctrl+C).
pub(super) fn ask(
    slot: &AskSlot,
    env: &CallEnv,
    header: &str,
    choices: Vec<Choice>,
) -> Option<Answer> {
    (env.print)(header);
    let how = format!("  {}\n", menu::how(&choices));
    let list: String = menu::render(&choices, None, false)
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    slot.menu().set(choices);
    // Keys typed before the question appeared were meant for something else; from here on
    // a key answers it.
    discard_typeahead();
    let rx = slot.open();
    // Without a status line drawing the menu (no cursor movement, or none running: a
    // custom command's `!`cmd`` before its turn), the list is part of the question.
    let drawn = slot.live_menu() && {
        let until = std::time::Instant::now() + Duration::from_millis(500);
        while !slot.menu().drawn() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        slot.menu().drawn()
    };
    (env.print)(&if drawn { how } else { list + &how });
    let line = loop {
        if env.cancel.is_cancelled() {
            slot.close();
            break None;
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => break Some(line),
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
        }
    };
    let chosen = line.as_deref().and_then(|l| slot.menu().chosen(l.trim()));
    slot.menu().clear();
    let line = line?;
    match chosen {
        Some(c) => (env.print)(&format!("❯ {c}\n")),
        // A typed reason: the transcript shows the refusal and its words.
        None => (env.print)(&format!("❯ {}\n", shown(line.trim()))),
    }
    Some(parse_answer(&line))
}

/// PlanConfirm in plan mode, interactive: the plan is shown, then the question. Ok: the
/// mode to go on in; Err: the refusal for the model (plan mode goes on).
pub(super) fn plan(slot: &AskSlot, env: &CallEnv) -> Result<PermMode, String> {
    let text = std::fs::read_to_string(env.plan_draft).unwrap_or_default();
    if text.trim().is_empty() {
        // Nothing to show: PlanConfirm itself says there is no draft.
        return Ok(PermMode::Default);
    }
    let mut shown_plan = String::from("The plan to approve:\n");
    for l in text.trim_end().lines() {
        shown_plan.push_str(&format!("  │ {}\n", shown(l)));
    }
    (env.print)(&shown_plan);
    let header = "Leave plan mode and start on this plan?\n";
    match ask(slot, env, header, menu::plan_choices()) {
        Some(Answer::Yes) => {
            log(
                env,
                "PlanConfirm",
                PermMode::Plan,
                "allowed",
                Some("yes"),
                "plan approved",
                None,
            );
            Ok(PermMode::Default)
        }
        Some(Answer::Always(_)) => {
            log(
                env,
                "PlanConfirm",
                PermMode::Plan,
                "allowed",
                Some("always"),
                "plan approved",
                None,
            );
            Ok(PermMode::AcceptEdits)
        }
        Some(Answer::No(reason)) => {
            log(
                env,
                "PlanConfirm",
                PermMode::Plan,
                "refused",
                Some("no"),
                &reason,
                None,
            );
            let mut s = "The user did not approve the plan; plan mode goes on.".to_string();
            if !reason.is_empty() {
                s.push_str(&format!(" The user says: {reason}"));
            }
            s.push_str(" Revise the plan draft, then call PlanConfirm again.");
            Err(s)
        }
        None => {
            log(
                env,
                "PlanConfirm",
                PermMode::Plan,
                "refused",
                None,
                "interrupted",
                None,
            );
            Err("The plan was not approved (interrupted); plan mode goes on.".into())
        }
    }
}

/// One `permission` line for events.jsonl.
pub(super) fn log(
    env: &CallEnv,
    label: &str,
    mode: PermMode,
    decision: &str,
    answer: Option<&str>,
    reason: &str,
    rule: Option<&str>,
) {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), "permission".into());
    m.insert("call".into(), label.into());
    m.insert("mode".into(), mode.name().into());
    m.insert("decision".into(), decision.into());
    m.insert(
        "answer".into(),
        answer.map(Into::into).unwrap_or(serde_json::Value::Null),
    );
    m.insert("reason".into(), reason.into());
    m.insert(
        "rule".into(),
        rule.map(Into::into).unwrap_or(serde_json::Value::Null),
    );
    m.insert("timestamp".into(), crate::util::time::utc_iso_now().into());
    (env.log)(&serde_json::Value::Object(m).to_string());
}

/// Drop what was typed but not yet read on the terminal (the question was not on screen).
pub(super) fn discard_typeahead() {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        let _ = nix::sys::termios::tcflush(std::io::stdin(), nix::sys::termios::FlushArg::TCIFLUSH);
    }
}
