//! The system prompt (model-tools.md §3). TODO: prompt helper.
use crate::session::Session;

/// Inputs of the prompt besides the environment.
pub struct PromptInputs<'a> {
    pub session: &'a Session,
    pub cwd: &'a std::path::Path,
    pub skills: &'a [String],
    pub depth: u32,
}

/// Build the system prompt (rebuilt before every LLM call).
pub fn build(inp: &PromptInputs) -> String {
    let _ = inp;
    String::from("<agent-identity>\nYou are bash-agent.\n</agent-identity>")
}
