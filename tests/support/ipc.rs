//! In-process session folders for the FIFO, notify and task tests.
use bash_agent::session::events::EventLog;
use bash_agent::session::Session;
use std::path::Path;

/// A fresh, initialised session in a temp folder (quiet event log).
pub fn session(dir: &Path, id: &str) -> (Session, EventLog) {
    let s = Session::new(dir, id);
    let log = EventLog::new(s.events(), None);
    s.init(&log).expect("init");
    (s, log)
}

/// Event lines of a session as JSON values.
pub fn events(s: &Session) -> Vec<serde_json::Value> {
    bash_agent::session::events::read_all(&s.events()).0
}

/// Events of a given type.
pub fn of_type(s: &Session, ty: &str) -> Vec<serde_json::Value> {
    events(s).into_iter().filter(|e| e["type"] == ty).collect()
}
