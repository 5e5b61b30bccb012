//! Inter-process channels: RESP framing, FIFOs, the notify path, script clients.
pub mod async_task;
pub mod client;
pub mod counter;
pub mod display;
pub mod fifo;
pub mod flag;
pub mod framing;
pub mod notify;
pub mod recover;
pub mod resp;
