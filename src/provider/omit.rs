//! Which optional request fields a call leaves out after a server refused one by name
//! (docs/providers.md#a-400-that-names-a-field).
//!
//! A 400 that names a field the server does not take is retried once without *that*
//! field, everything else kept (`stream_options` above all: without it an OpenAI-style
//! server reports no usage). The field is read from the server's words before any hint
//! (`Use thinking.type.adaptive and output_config.effort …` names what to send instead,
//! not what was refused). Only if the retry is refused by name again does the call fall
//! back to no reasoning fields at all.

/// The fields a body leaves out (or, for `max_tokens`, renames).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Omit {
    /// Claude `thinking` (with its `budget_tokens`); chat `thinking` (DeepSeek, gateways).
    pub thinking: bool,
    /// Claude `output_config`; chat `reasoning_effort`; Responses `reasoning` (and the
    /// `include` of its encrypted content).
    pub effort: bool,
    /// Chat `stream_options` (only when a server names it).
    pub stream_options: bool,
    /// Chat `max_tokens` refused in favour of `max_completion_tokens` (a reasoning model
    /// the table does not know): the limit is sent under that name.
    pub max_tokens: bool,
    /// The last resort: no reasoning fields at all (thinking forced off).
    pub lean: bool,
}

impl Omit {
    pub const NONE: Omit = Omit {
        thinking: false,
        effort: false,
        stream_options: false,
        max_tokens: false,
        lean: false,
    };

    pub fn union(self, o: Omit) -> Omit {
        Omit {
            thinking: self.thinking || o.thinking,
            effort: self.effort || o.effort,
            stream_options: self.stream_options || o.stream_options,
            max_tokens: self.max_tokens || o.max_tokens,
            lean: self.lean || o.lean,
        }
    }

    /// The fields the server's error text names as refused; `None` when it names none
    /// this module knows (the caller then falls back to [`Omit::lean`]).
    pub fn named_in(server_text: &str) -> Option<Omit> {
        let t = server_text.to_ascii_lowercase();
        let mut o = Omit::NONE;
        let tokens = t
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .filter(|s| !s.is_empty());
        for tok in tokens {
            if tok == "use" {
                break; // a hint of what to send instead follows
            }
            for part in tok.split('.') {
                match part {
                    "thinking" | "budget_tokens" => o.thinking = true,
                    "output_config" | "effort" | "reasoning_effort" | "reasoning" => {
                        o.effort = true
                    }
                    "stream_options" => o.stream_options = true,
                    "max_tokens" if t.contains("max_completion_tokens") => o.max_tokens = true,
                    _ => {}
                }
            }
        }
        (o != Omit::NONE).then_some(o)
    }
}

/// What is left out, in words (`-v`): e.g. `without effort, thinking`.
impl std::fmt::Display for Omit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.lean {
            parts.push("any reasoning field");
        }
        if self.thinking && !self.lean {
            parts.push("thinking");
        }
        if self.effort && !self.lean {
            parts.push("effort");
        }
        if self.stream_options {
            parts.push("stream_options");
        }
        if self.max_tokens {
            parts.push("max_tokens (sent as max_completion_tokens)");
        }
        write!(f, "without {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(s: &str) -> Omit {
        Omit::named_in(s).unwrap_or_else(|| panic!("nothing named in {s}"))
    }

    #[test]
    fn each_form_names_only_its_field() {
        let effort = Omit {
            effort: true,
            ..Omit::NONE
        };
        let thinking = Omit {
            thinking: true,
            ..Omit::NONE
        };
        assert_eq!(
            named("This model does not support the effort parameter."),
            effort
        );
        // The hint names output_config.effort as what to use: not refused.
        assert_eq!(
            named("thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior."),
            thinking
        );
        assert_eq!(
            named("Unrecognized request argument supplied: thinking"),
            thinking
        );
        assert_eq!(named("budget_tokens: Unsupported parameter"), thinking);
        assert_eq!(
            named("Unsupported parameter: 'reasoning_effort' is not supported with this model."),
            effort
        );
        assert_eq!(
            named("Unsupported parameter: 'reasoning.effort' is not supported with this model."),
            effort
        );
        assert_eq!(
            named("output_config: Extra inputs are not permitted"),
            effort
        );
        assert_eq!(
            named("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
            Omit {
                max_tokens: true,
                ..Omit::NONE
            }
        );
        assert_eq!(
            named("stream_options: unknown field"),
            Omit {
                stream_options: true,
                ..Omit::NONE
            }
        );
        // LiteLLM names several at once.
        assert_eq!(
            named("UnsupportedParamsError: gemini does not support parameters: ['reasoning_effort', 'thinking']"),
            thinking.union(effort)
        );
        // DeepSeek's message field is not a request field.
        assert_eq!(Omit::named_in("unknown field reasoning_content"), None);
        assert_eq!(Omit::named_in("max_tokens: too large"), None);
    }
}
