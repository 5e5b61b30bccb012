//! TODO
use super::*;
pub fn run(
    _cfg: &ProviderConfig,
    _req: &Request,
    _cancel: &Cancel,
    on_event: &mut dyn FnMut(StreamEvent),
) -> CallInfo {
    on_event(StreamEvent::Error("provider not implemented".into()));
    CallInfo::default()
}
