//! `kill -9` at 200 random moments of a scripted session. A target of its own: whether a
//! run gets far enough before its kill depends on the CPU it gets, so no other test of the
//! suite runs beside it in the same process.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod faults_kill;
