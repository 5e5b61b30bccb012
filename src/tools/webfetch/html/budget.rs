//! When a conversion stops: the fetch's deadline and the run's cancel flag, looked at by the
//! tree builder every few hundred tokens and by the renderer every few hundred elements.
use super::parse::Element;
use super::render::{children, Out};
use crate::util::cancel::Cancel;
use std::time::Instant;

/// When a conversion must stop: a deadline and the run's cancel flag (either optional).
#[derive(Clone, Debug, Default)]
pub struct Budget {
    pub deadline: Option<Instant>,
    pub cancel: Option<Cancel>,
}

impl Budget {
    /// True once the deadline has passed or the run was interrupted.
    pub fn exhausted(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }
}

thread_local! {
    /// The budget of the conversion running on this thread, the elements rendered since it
    /// was last looked at, and whether it ran out (then every `children` returns at once).
    static BUDGET: std::cell::RefCell<(Budget, u32, bool)> = Default::default();
}

/// Elements rendered between two looks at the budget.
const CHECK_EVERY: u32 = 256;

/// The document as markdown, or `None` when `budget` ran out on the way. (The budget sits in
/// a thread-local for the call rather than in every `Out`: inline parts render into `Out`s
/// of their own, deep in the recursion.)
pub fn document(doc: &Element, budget: &Budget) -> Option<String> {
    BUDGET.with(|b| *b.borrow_mut() = (budget.clone(), 0, false));
    let mut out = Out::default();
    children(doc, &mut out);
    let stopped = BUDGET.with(|b| std::mem::take(&mut *b.borrow_mut()).2);
    (!stopped).then(|| out.finish())
}

/// False once the budget has run out (looked at every [`CHECK_EVERY`] calls).
pub fn within_budget() -> bool {
    BUDGET.with(|b| {
        let mut b = b.borrow_mut();
        if b.2 {
            return false;
        }
        b.1 += 1;
        if b.1 >= CHECK_EVERY {
            b.1 = 0;
            b.2 = b.0.exhausted();
        }
        !b.2
    })
}
