//! Beyond the shell version: undo (file history), the usage ledger, search, session management.
pub mod hash;
pub mod history;
pub mod ledger;
pub mod prices;
pub mod search;
pub mod search_index;
pub mod search_writer;
pub mod session_show;
pub mod sessions;
pub mod undo;
pub mod usage;
