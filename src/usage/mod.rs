//! The usage ledger (`usage.jsonl`, one line per model call), the price table and the
//! `usage` report built from them.
pub mod ledger;
pub mod prices;
pub mod report;
