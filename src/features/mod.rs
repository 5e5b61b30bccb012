//! Beyond the shell version: undo (file history), the usage ledger, search, session management.
pub mod history;
pub mod ledger;
pub mod search;
pub mod sessions;
