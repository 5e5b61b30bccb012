//! Fault injection: full disks, FIFO garbage, hostile names, provider faults (through the
//! binary and in-process), planted secrets, and the fuzz regression corpus (`kill -9` has a
//! target of its own, `tests/faults_kill`). Every session left behind must stay whole and
//! loadable.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod answer_ends;
mod edges_net;
mod edges_turns;
mod ends;
mod faults_disk;
mod faults_fifo;
mod faults_fork;
mod faults_framing;
mod faults_names;
mod faults_numbers;
mod faults_provider;
mod faults_secrets;
mod faults_torn;
mod fuzz_bashparse;
mod fuzz_regress;
mod hostile_writers;
mod huge_answer;
mod large_line_kill;
mod late_result;
mod provider_faults;
mod rewind_kill;
mod sandbox_add_dir;
mod sandbox_e2e;
mod sandbox_modes;
mod sandbox_secrets;
mod usage_estimated;
