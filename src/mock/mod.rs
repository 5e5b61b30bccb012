//! The scripted model server (hidden `mock-server` subcommand). TODO: provider helper.

/// Run the server until killed. Prints `http://127.0.0.1:<port>` on stdout once listening.
pub fn cmd(script: &str, port: u16, record: Option<&str>) -> anyhow::Result<i32> {
    let _ = (script, port, record);
    anyhow::bail!("mock server not implemented")
}
