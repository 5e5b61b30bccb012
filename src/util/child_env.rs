//! The environment given to extension processes (MCP servers, hooks): ours minus anything
//! that looks like a secret, so a server or a hook script never sees an API key.
//!
//! PLACEHOLDER: replace `scrubbed_env_placeholder` with the sandbox's secret scrubbing
//! (`sandbox::env`) once it lands; the callers only need "a list of (name, value) pairs".

/// Our environment without secret-looking variables (API keys, tokens, passwords, cloud
/// credentials and the agent's internal key variable).
pub fn scrubbed_env_placeholder() -> Vec<(String, String)> {
    std::env::vars().filter(|(k, _)| !looks_secret(k)).collect()
}

fn looks_secret(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    const PARTS: [&str; 8] = [
        "API_KEY",
        "APIKEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "PRIVATE_KEY",
    ];
    PARTS.iter().any(|p| n.contains(p))
        || n.starts_with("AWS_")
        || n.starts_with("BASH_AGENT_INTERNAL")
        || n == "BASH_AGENT_SUB_API_KEY"
}

#[cfg(test)]
mod tests {
    use super::looks_secret;

    #[test]
    fn secret_names_are_recognised() {
        for k in [
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "aws_access_key_id",
            "DB_PASSWORD",
        ] {
            assert!(looks_secret(k), "{k}");
        }
        for k in ["PATH", "HOME", "LANG", "TERM"] {
            assert!(!looks_secret(k), "{k}");
        }
    }
}
