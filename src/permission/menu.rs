//! The approval question as a menu (docs/interactive.md, "Permissions"), as Claude Code
//! shows it: numbered choices, the first selected; a number answers at once, ↑/↓ move the
//! selection and Enter takes it, and the typed answers (`y`, `a`, `p`, `u`, `n REASON`) still
//! work. The state lives in the [`super::AskSlot`] the editor and the status line share: the
//! editor moves the selection, the status line draws it under the transcript.
use std::sync::{Arc, Mutex};

/// One choice: its typed answer (what [`super::parse_answer`] reads) and its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub answer: &'static str,
    pub label: String,
}

#[derive(Debug, Default)]
struct State {
    choices: Vec<Choice>,
    selected: usize,
    /// The status line has drawn these choices (it is live: the question need not list them).
    drawn: bool,
}

/// The menu of the waiting question (empty when none waits).
#[derive(Clone, Default)]
pub struct Menu(Arc<Mutex<State>>);

impl Menu {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn set(&self, choices: Vec<Choice>) {
        *self.lock() = State {
            choices,
            selected: 0,
            drawn: false,
        };
    }

    pub(super) fn clear(&self) {
        *self.lock() = State::default();
    }

    /// ↑ (`-1`) or ↓ (`1`), wrapping; false when no menu is shown.
    pub fn step(&self, by: isize) -> bool {
        let mut st = self.lock();
        let n = st.choices.len() as isize;
        if n == 0 {
            return false;
        }
        st.selected = (st.selected as isize + by).rem_euclid(n) as usize;
        true
    }

    /// The typed answer of choice `n` (1-based), if there is one.
    pub fn numbered(&self, n: usize) -> Option<&'static str> {
        let st = self.lock();
        n.checked_sub(1)
            .and_then(|i| st.choices.get(i))
            .map(|c| c.answer)
    }

    /// The typed answer of the selected choice (Enter on an empty line).
    pub fn selected(&self) -> Option<&'static str> {
        let st = self.lock();
        st.choices.get(st.selected).map(|c| c.answer)
    }

    /// The label of the choice whose typed answer is `answer`, numbered, for the transcript.
    pub fn chosen(&self, answer: &str) -> Option<String> {
        let st = self.lock();
        let i = st.choices.iter().position(|c| c.answer == answer)?;
        Some(format!("{}. {}", i + 1, st.choices[i].label))
    }

    /// The choices as lines, the selected one marked `❯` (and in colour with `color`).
    pub fn lines(&self, color: bool) -> Vec<String> {
        let mut st = self.lock();
        st.drawn = !st.choices.is_empty();
        render(&st.choices, Some(st.selected), color)
    }

    /// Whether the status line drew the current choices.
    pub(super) fn drawn(&self) -> bool {
        self.lock().drawn
    }
}

/// The choices as lines; `selected` is marked.
pub fn render(choices: &[Choice], selected: Option<usize>, color: bool) -> Vec<String> {
    choices
        .iter()
        .enumerate()
        .map(|(i, c)| match selected {
            Some(s) if s == i && color => format!("\x1b[36m❯ {}. {}\x1b[0m", i + 1, c.label),
            Some(s) if s == i => format!("❯ {}. {}", i + 1, c.label),
            _ => format!("  {}. {}", i + 1, c.label),
        })
        .collect()
}

/// How [`choices`] labels the project choice: the folder's stored trust decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectTrust {
    Trusted,
    /// Never decided (or only for one run): saving there trusts the folder.
    Undecided,
    /// The person chose not to trust it: a project rule would not apply; not offered.
    Declined,
}

/// The choices of an approval question.
pub fn choices(project: ProjectTrust) -> Vec<Choice> {
    let c = |answer, label: &str| Choice {
        answer,
        label: label.to_string(),
    };
    let mut v = vec![
        c("y", "Yes"),
        c("a", "Yes, and don't ask again this session"),
    ];
    match project {
        ProjectTrust::Trusted => v.push(c(
            "p",
            "Yes, and don't ask again in this project (saved in .bash-agent/settings.json)",
        )),
        ProjectTrust::Undecided => v.push(c(
            "p",
            "Yes, and don't ask again in this project (saved in .bash-agent/settings.json; this also trusts the folder)",
        )),
        ProjectTrust::Declined => {}
    }
    v.push(c(
        "u",
        "Yes, and don't ask again anywhere (saved in your ~/.bash-agent/settings.json)",
    ));
    v.push(c("n", "No, and tell the agent what to do instead"));
    v
}

/// The choices of the question that leaves plan mode.
pub fn plan_choices() -> Vec<Choice> {
    vec![
        Choice {
            answer: "y",
            label: "Yes, start, and ask before each edit (default mode)".into(),
        },
        Choice {
            answer: "a",
            label: "Yes, start, and accept edits in this folder (accept-edits mode)".into(),
        },
        Choice {
            answer: "n",
            label: "No, keep planning, and tell the agent what to change".into(),
        },
    ]
}

/// The line under the choices: every way to answer.
pub fn how(choices: &[Choice]) -> String {
    let keys: Vec<&str> = choices.iter().map(|c| c.answer).collect();
    format!(
        "↑/↓ and Enter, or 1-{}, or type {} (n and a reason tells the agent why)",
        choices.len(),
        keys.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_move_and_pick() {
        let m = Menu::default();
        assert!(!m.step(1));
        assert_eq!(m.selected(), None);
        m.set(choices(ProjectTrust::Trusted));
        assert_eq!(m.selected(), Some("y"));
        assert!(m.step(-1));
        assert_eq!(m.selected(), Some("n"));
        assert!(m.step(2));
        assert_eq!(m.selected(), Some("a"));
        assert_eq!(m.numbered(3), Some("p"));
        assert_eq!(m.numbered(0), None);
        assert_eq!(m.numbered(6), None);
        assert!(m.lines(false)[1].starts_with("❯ 2. Yes, and"));
        assert_eq!(m.chosen("u").unwrap().split('.').next(), Some("4"));
        // A folder the person chose not to trust gets no project choice.
        m.set(choices(ProjectTrust::Declined));
        assert_eq!(m.numbered(3), Some("u"));
        m.clear();
        assert!(m.lines(false).is_empty());
    }
}
