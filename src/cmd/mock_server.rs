//! `bash-agent mock-server --script FILE [--port N] [--record FILE]` (hidden): the scripted
//! model server of the tests and the offline demo, in the foreground until killed.
use crate::error::Result;
use crate::mock::Server;
use std::io::Write;

/// Run the server until killed. Prints `http://127.0.0.1:<port>` on stdout once listening.
pub fn cmd_mock_server(script: &str, port: u16, record: Option<&str>) -> Result {
    let text = std::fs::read_to_string(script)
        .map_err(|e| anyhow::anyhow!("cannot read mock script {script}: {e}"))?;
    let server = Server::start(&text, record.map(std::path::Path::new), port)?;
    let mut out = std::io::stdout();
    writeln!(out, "{}", server.url)?;
    out.flush()?;
    loop {
        std::thread::park();
    }
}
