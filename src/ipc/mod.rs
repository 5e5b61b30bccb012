//! Inter-process channels: RESP framing, FIFOs, the notify path, script clients.
pub mod client;
pub mod resp;
